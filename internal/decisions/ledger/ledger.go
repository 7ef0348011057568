// Package ledger is the stored book of decisions (internal/decisions
// holds the record, its states and the rules of a question and its
// resolution): the records by id, a counter per scope and project and an
// index in raising order, read and changed by planned writes (store.Plan)
// that the use case calling it joins with its audit entry and commits in
// one transaction.
package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/decisions"
	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/paging/pager"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/termtext"
)

// segment is the where as two key segments; "_" stands for no project
// (an id never starts with '_', so it names no project).
func segment(w decisions.Where) string {
	if w.Project == "" {
		return w.Scope + "/_"
	}
	return w.Scope + "/" + w.Project
}

// spanPrefix is the index prefix of the span's decisions.
func spanPrefix(s decisions.Span) string {
	switch {
	case s.Scope == "":
		return prefixWhere
	case s.Project == "":
		return prefixWhere + s.Scope + "/"
	}
	return prefixWhere + segment(decisions.Where(s)) + "/"
}

// The store layout: the records by id, a counter per scope and project,
// and an index by scope, project and zero-padded number, so that key order
// within a project is raising order.
const (
	// Prefix holds every key of this package.
	Prefix = "decisions/"
	// PrefixItem holds the records, by id.
	PrefixItem  = Prefix + "item/"
	prefixSeq   = Prefix + "seq/"
	prefixWhere = Prefix + "where/"
)

func keyItem(id string) string { return PrefixItem + id }

func keySeq(w decisions.Where) string { return prefixSeq + segment(w) }

func keyWhere(w decisions.Where, n int) string {
	return fmt.Sprintf("%s%s/%06d", prefixWhere, segment(w), n)
}

// Book reads decisions from a store and plans their changes.
type Book struct {
	st  store.Store
	now func() time.Time
}

// NewBook returns a Book over st; now is its clock (time.Now when nil).
func NewBook(st store.Store, now func() time.Time) *Book {
	if now == nil {
		now = time.Now
	}
	return &Book{st: st, now: now}
}

// Get returns a decision and the revision it was read at.
func (b *Book) Get(ctx context.Context, id string) (decisions.Decision, int64, error) {
	if err := decisions.CheckID(id); err != nil {
		return decisions.Decision{}, 0, err
	}
	var d decisions.Decision
	rev, err := store.GetJSON(ctx, b.st, keyItem(id), &d)
	switch {
	case err != nil:
		return decisions.Decision{}, 0, err
	case rev == 0:
		return decisions.Decision{}, 0, fmt.Errorf("decision %s: %w", id, decisions.ErrNotFound)
	}
	return d, rev, nil
}

// Target is the stored decision's operation target (its scope and
// project as recorded), or ErrNotFound.
func (b *Book) Target(ctx context.Context, id string) (confirm.Target, error) {
	d, _, err := b.Get(ctx, id)
	return d.Target(), err
}

// List reads one page of the span's decisions by scope, then project,
// then raising order, continuing after token (paging's form: "" for the
// first page, then the previous page's Next), keeping those that pass f:
// a page may hold fewer than limit and still have a Next.
func (b *Book) List(ctx context.Context, span decisions.Span, f decisions.Filter, token string, limit int) (paging.Page[decisions.Decision], error) {
	return pager.Read(ctx, b.st, spanPrefix(span), token, limit, func(kv store.KV) (decisions.Decision, bool, error) {
		d, _, err := b.Get(ctx, string(kv.Value))
		return d, err == nil && f.Match(d), err
	})
}

// PlanRaise plans decision id, a new open decision in w raised by by.
// Authorization (may by raise in w?) is the caller's. Raising an id that
// exists again with the same raiser and place plans nothing and returns
// it (a retry under the same correlation id); any other reuse is refused.
func (b *Book) PlanRaise(ctx context.Context, id string, w decisions.Where, by confirm.Principal, q decisions.Raise) (decisions.Decision, store.Plan, error) {
	if err := decisions.CheckID(id); err != nil {
		return decisions.Decision{}, store.Plan{}, err
	}
	if err := w.Check(); err != nil {
		return decisions.Decision{}, store.Plan{}, err
	}
	if err := q.Check(); err != nil {
		return decisions.Decision{}, store.Plan{}, err
	}
	if have, _, err := b.Get(ctx, id); err == nil {
		if have.Where != w || have.RaisedBy != by {
			return decisions.Decision{}, store.Plan{}, fmt.Errorf("decision %s: %w", id, decisions.ErrIDTaken)
		}
		return have, store.Plan{}, nil
	} else if !errors.Is(err, decisions.ErrNotFound) {
		return decisions.Decision{}, store.Plan{}, err
	}
	n, seqRev, err := b.count(ctx, w)
	if err != nil {
		return decisions.Decision{}, store.Plan{}, err
	}
	d := decisions.Decision{ID: id, Where: w, Seq: n + 1, Question: q.Question, Options: slices.Clone(q.Options), Context: q.Context,
		RaisedBy: by, Raised: b.now().UTC(), State: decisions.StateOpen}
	val, err := json.Marshal(d)
	if err != nil {
		return decisions.Decision{}, store.Plan{}, err
	}
	return d, store.Plan{
		Conds: []store.Cond{{Key: keySeq(w), ModRev: seqRev}, {Key: keyItem(id)}},
		Ops: []store.Op{store.Put(keySeq(w), strconv.AppendInt(nil, int64(d.Seq), 10)), store.Put(keyItem(id), val),
			store.Put(keyWhere(w, d.Seq), []byte(id))},
	}, nil
}

// count is how many decisions were raised in w and the revision of its
// counter (0 when none was).
func (b *Book) count(ctx context.Context, w decisions.Where) (int, int64, error) {
	kv, err := b.st.Get(ctx, keySeq(w))
	if errors.Is(err, store.ErrNotFound) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("read the decision counter of %s: %w", segment(w), err)
	}
	n, err := strconv.Atoi(string(kv.Value))
	if err != nil {
		return 0, 0, fmt.Errorf("decision counter of %s: %w", segment(w), err)
	}
	if n >= decisions.MaxPerProject {
		return 0, 0, fmt.Errorf("%s: %w (%d)", segment(w), decisions.ErrTooMany, decisions.MaxPerProject)
	}
	return n, kv.ModRev, nil
}

// PlanResolve plans the decision's one resolution. res.Time is set here.
// A model resolving on another principal's decision (a secretary's relay,
// a coordinator's lane approval) must carry the approved confirmation that
// holds that decision: nobody self-originates a resolution for another.
func (b *Book) PlanResolve(ctx context.Context, id string, res decisions.Resolution) (decisions.Decision, store.Plan, error) {
	if err := termtext.CheckField("note", res.Note, decisions.MaxNote, true); err != nil {
		return decisions.Decision{}, store.Plan{}, err
	}
	if res.ResolvedBy.IsZero() || res.DecidedBy.IsZero() {
		return decisions.Decision{}, store.Plan{}, fmt.Errorf("decision %s: %w", id, decisions.ErrNoDecider)
	}
	if res.DecidedBy != res.ResolvedBy && res.ConfirmationID == "" {
		return decisions.Decision{}, store.Plan{}, fmt.Errorf("decision %s: %s for %s: %w", id, res.ResolvedBy, res.DecidedBy, decisions.ErrSelfOriginated)
	}
	d, rev, err := b.Get(ctx, id)
	if err != nil {
		return decisions.Decision{}, store.Plan{}, err
	}
	if d.Resolution != nil {
		return decisions.Decision{}, store.Plan{}, fmt.Errorf("decision %s: %w (%q, decided by %s)", id, decisions.ErrAlreadyResolved,
			d.Resolution.Option, d.Resolution.DecidedBy)
	}
	if !slices.Contains(d.Options, res.Option) {
		return decisions.Decision{}, store.Plan{}, fmt.Errorf("decision %s: %q: %w (%s)", id, res.Option, decisions.ErrNotAnOption,
			strings.Join(d.Options, " | "))
	}
	res.Time = b.now().UTC()
	d.Resolution, d.State = &res, decisions.StateResolved
	val, err := json.Marshal(d)
	if err != nil {
		return decisions.Decision{}, store.Plan{}, err
	}
	return d, store.Plan{
		Conds: []store.Cond{{Key: keyItem(id), ModRev: rev}},
		Ops:   []store.Op{store.Put(keyItem(id), val)},
	}, nil
}
