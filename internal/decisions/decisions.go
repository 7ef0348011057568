// Package decisions owns decision records: a question with its options and
// context, raised by a persona (or a human) within a scope and project, and
// resolved once, with a record of who resolved it and who decided.
//
// The matrix's footnotes make the two differ: "A secretary resolves a
// decision only as a durable relay of the bound human authority's explicit
// decision. A team coordinator resolves only when the bound lane approver
// authorizes that decision. Neither class self-originates a resolution."
// confirm.Authorize routes such a resolution to that authority; the use
// case passes the authority's decision here as DecidedBy with the
// confirmation that carried it, and this package refuses a resolution by a
// model for another principal without that evidence.
//
// The package reads the store and plans writes (store.Plan); the use case
// that calls it joins its audit entry and commits the one transaction.
package decisions

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
	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/paging/pager"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/termtext"
)

// The bounds of a decision.
const (
	// MaxPerProject bounds the decisions raised in one scope and project.
	MaxPerProject = 100000
	// MaxQuestion bounds a question, in bytes.
	MaxQuestion = 1024
	// MaxContext bounds a decision's context, in bytes (multi-line).
	MaxContext = 16 << 10
	// MaxOptions bounds the options of a decision.
	MaxOptions = 16
	// MaxOption bounds one option, in bytes.
	MaxOption = 256
	// MaxNote bounds a resolution's note, in bytes (multi-line).
	MaxNote = 4 << 10
)

// Named errors of decisions; each message says what to do.
var (
	ErrNotFound         = errors.New("no such decision")
	ErrAlreadyResolved  = errors.New("the decision is already resolved; a resolution is final")
	ErrNotAnOption      = errors.New("the resolution is not one of the decision's options")
	ErrTooFewOptions    = errors.New("a decision offers at least two distinct options")
	ErrTooManyOptions   = errors.New("a decision offers too many options")
	ErrTooMany          = errors.New("the project has the most decisions it may have")
	ErrSelfOriginated   = errors.New("a relayed resolution needs the deciding authority's confirmation; the resolver does not decide for another")
	ErrNoDecider        = errors.New("a resolution names who decided")
	ErrEmptyText        = errors.New("a required text is empty")
	ErrBadRef           = errors.New("malformed decision id, scope or project")
	ErrIDTaken          = errors.New("the decision id names another decision")
	ErrUnknownState     = errors.New("unknown decision state")
	ErrDuplicateOptions = errors.New("a decision's options are distinct")
)

// State is whether a decision is still open.
type State string

// The states of a decision: open, then resolved for good.
const (
	StateOpen     State = "open"
	StateResolved State = "resolved"
)

// ParseState reads a state name ("" is every state).
func ParseState(s string) (State, error) {
	switch State(s) {
	case "", StateOpen, StateResolved:
		return State(s), nil
	}
	return "", fmt.Errorf("decision state %q: %w (open or resolved)", s, ErrUnknownState)
}

// Where is the scope and project a decision is raised in: the raiser's
// own (a scope-wide or root persona's decisions have no project).
type Where struct {
	Scope   string `json:"scope"`
	Project string `json:"project,omitempty"`
}

// segment is the where as two key segments; "_" stands for no project
// (an id never starts with '_', so it names no project).
func (w Where) segment() string {
	if w.Project == "" {
		return w.Scope + "/_"
	}
	return w.Scope + "/" + w.Project
}

func (w Where) check() error {
	if _, err := confirm.NormalizeID(w.Scope); err != nil {
		return fmt.Errorf("decision scope %q: %w (%w)", w.Scope, ErrBadRef, err)
	}
	if w.Project == "" {
		return nil
	}
	if _, err := confirm.NormalizeID(w.Project); err != nil {
		return fmt.Errorf("decision project %q: %w (%w)", w.Project, ErrBadRef, err)
	}
	return nil
}

// Span is the part of the installation a list covers: every scope when
// Scope is "", else one scope, and of it one project when Project is set.
type Span Where

// prefix is the index prefix of the span's decisions.
func (s Span) prefix() string {
	switch {
	case s.Scope == "":
		return prefixWhere
	case s.Project == "":
		return prefixWhere + s.Scope + "/"
	}
	return prefixWhere + Where(s).segment() + "/"
}

func checkID(id string) error {
	if _, err := confirm.NormalizeID(id); err != nil {
		return fmt.Errorf("decision id %q: %w (%w)", id, ErrBadRef, err)
	}
	return nil
}

// Decision is the record of one decision.
type Decision struct {
	// ID is the decision's id, unique in the installation (the tool table
	// derives it from the raising call's correlation id).
	ID string `json:"id"`
	Where
	// Seq numbers the decision among those raised in its scope and
	// project, from 1.
	Seq      int               `json:"seq"`
	Question string            `json:"question"`
	Options  []string          `json:"options"`
	Context  string            `json:"context,omitempty"`
	RaisedBy confirm.Principal `json:"raised_by"`
	Raised   time.Time         `json:"raised"`
	State    State             `json:"state"`
	// Resolution is set once, when the decision is resolved.
	Resolution *Resolution `json:"resolution,omitempty"`
}

// Resolution is how a decision was resolved and by whom.
type Resolution struct {
	// Option is the chosen option, one of the decision's.
	Option string `json:"option"`
	Note   string `json:"note,omitempty"`
	// ResolvedBy is who wrote the resolution: the persona that called
	// resolve_decision, or a human resolving in the console.
	ResolvedBy confirm.Principal `json:"resolved_by"`
	// DecidedBy is whose decision it is: ResolvedBy itself, or the
	// authority a secretary relays or a coordinator's lane approver.
	DecidedBy confirm.Principal `json:"decided_by"`
	// ConfirmationID is the approved confirmation that carried
	// DecidedBy's decision, when it is not ResolvedBy's own.
	ConfirmationID string    `json:"confirmation_id,omitempty"`
	Time           time.Time `json:"time"`
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

func keySeq(w Where) string { return prefixSeq + w.segment() }

func keyWhere(w Where, n int) string { return fmt.Sprintf("%s%s/%06d", prefixWhere, w.segment(), n) }

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
func (b *Book) Get(ctx context.Context, id string) (Decision, int64, error) {
	if err := checkID(id); err != nil {
		return Decision{}, 0, err
	}
	var d Decision
	rev, err := store.GetJSON(ctx, b.st, keyItem(id), &d)
	switch {
	case err != nil:
		return Decision{}, 0, err
	case rev == 0:
		return Decision{}, 0, fmt.Errorf("decision %s: %w", id, ErrNotFound)
	}
	return d, rev, nil
}

// Target is the stored decision's operation target (its scope and
// project as recorded), or ErrNotFound.
func (b *Book) Target(ctx context.Context, id string) (confirm.Target, error) {
	d, _, err := b.Get(ctx, id)
	return d.Target(), err
}

// Target is the decision as confirm's operation target, from the record.
func (d Decision) Target() confirm.Target {
	return confirm.Target{Kind: confirm.TargetDecision, Scope: d.Scope, Project: d.Project, Value: d.ID}
}

// Filter narrows a list: to one state ("" for both), to one raiser (zero
// for any).
type Filter struct {
	State    State
	RaisedBy confirm.Principal
}

func (f Filter) match(d Decision) bool {
	return (f.State == "" || d.State == f.State) && (f.RaisedBy.IsZero() || d.RaisedBy == f.RaisedBy)
}

// List reads one page of the span's decisions by scope, then project,
// then raising order, continuing after token (paging's form: "" for the
// first page, then the previous page's Next), keeping those that pass f:
// a page may hold fewer than limit and still have a Next.
func (b *Book) List(ctx context.Context, span Span, f Filter, token string, limit int) (paging.Page[Decision], error) {
	return pager.Read(ctx, b.st, span.prefix(), token, limit, func(kv store.KV) (Decision, bool, error) {
		d, _, err := b.Get(ctx, string(kv.Value))
		return d, err == nil && f.match(d), err
	})
}

// Raise is what a raiser asks.
type Raise struct {
	Question string   `json:"question"`
	Options  []string `json:"options"`
	Context  string   `json:"context,omitempty"`
}

// check refuses a malformed question, options or context by name.
func (q Raise) check() error {
	if err := termtext.CheckField("question", q.Question, MaxQuestion, false); err != nil {
		return err
	}
	if q.Question == "" {
		return fmt.Errorf("field \"question\": %w: a decision asks something", ErrEmptyText)
	}
	if err := termtext.CheckField("context", q.Context, MaxContext, true); err != nil {
		return err
	}
	if len(q.Options) > MaxOptions {
		return fmt.Errorf("%w: %d, at most %d", ErrTooManyOptions, len(q.Options), MaxOptions)
	}
	for i, o := range q.Options {
		if err := termtext.CheckField("options", o, MaxOption, false); err != nil {
			return err
		}
		if o == "" {
			return fmt.Errorf("field \"options\": %w: option %d is empty", ErrEmptyText, i+1)
		}
		if slices.Contains(q.Options[:i], o) {
			return fmt.Errorf("option %q: %w", o, ErrDuplicateOptions)
		}
	}
	if len(q.Options) < 2 {
		return fmt.Errorf("%w (%d given)", ErrTooFewOptions, len(q.Options))
	}
	return nil
}

// PlanRaise plans decision id, a new open decision in w raised by by.
// Authorization (may by raise in w?) is the caller's. Raising an id that
// exists again with the same raiser and place plans nothing and returns
// it (a retry under the same correlation id); any other reuse is refused.
func (b *Book) PlanRaise(ctx context.Context, id string, w Where, by confirm.Principal, q Raise) (Decision, store.Plan, error) {
	if err := checkID(id); err != nil {
		return Decision{}, store.Plan{}, err
	}
	if err := w.check(); err != nil {
		return Decision{}, store.Plan{}, err
	}
	if err := q.check(); err != nil {
		return Decision{}, store.Plan{}, err
	}
	if have, _, err := b.Get(ctx, id); err == nil {
		if have.Where != w || have.RaisedBy != by {
			return Decision{}, store.Plan{}, fmt.Errorf("decision %s: %w", id, ErrIDTaken)
		}
		return have, store.Plan{}, nil
	} else if !errors.Is(err, ErrNotFound) {
		return Decision{}, store.Plan{}, err
	}
	n, seqRev, err := b.count(ctx, w)
	if err != nil {
		return Decision{}, store.Plan{}, err
	}
	d := Decision{ID: id, Where: w, Seq: n + 1, Question: q.Question, Options: slices.Clone(q.Options), Context: q.Context,
		RaisedBy: by, Raised: b.now().UTC(), State: StateOpen}
	val, err := json.Marshal(d)
	if err != nil {
		return Decision{}, store.Plan{}, err
	}
	return d, store.Plan{
		Conds: []store.Cond{{Key: keySeq(w), ModRev: seqRev}, {Key: keyItem(id)}},
		Ops: []store.Op{store.Put(keySeq(w), strconv.AppendInt(nil, int64(d.Seq), 10)), store.Put(keyItem(id), val),
			store.Put(keyWhere(w, d.Seq), []byte(id))},
	}, nil
}

// count is how many decisions were raised in w and the revision of its
// counter (0 when none was).
func (b *Book) count(ctx context.Context, w Where) (int, int64, error) {
	kv, err := b.st.Get(ctx, keySeq(w))
	if errors.Is(err, store.ErrNotFound) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("read the decision counter of %s: %w", w.segment(), err)
	}
	n, err := strconv.Atoi(string(kv.Value))
	if err != nil {
		return 0, 0, fmt.Errorf("decision counter of %s: %w", w.segment(), err)
	}
	if n >= MaxPerProject {
		return 0, 0, fmt.Errorf("%s: %w (%d)", w.segment(), ErrTooMany, MaxPerProject)
	}
	return n, kv.ModRev, nil
}

// PlanResolve plans the decision's one resolution. res.Time is set here.
// A model resolving on another principal's decision (a secretary's relay,
// a coordinator's lane approval) must carry the approved confirmation that
// holds that decision: nobody self-originates a resolution for another.
func (b *Book) PlanResolve(ctx context.Context, id string, res Resolution) (Decision, store.Plan, error) {
	if err := termtext.CheckField("note", res.Note, MaxNote, true); err != nil {
		return Decision{}, store.Plan{}, err
	}
	if res.ResolvedBy.IsZero() || res.DecidedBy.IsZero() {
		return Decision{}, store.Plan{}, fmt.Errorf("decision %s: %w", id, ErrNoDecider)
	}
	if res.DecidedBy != res.ResolvedBy && res.ConfirmationID == "" {
		return Decision{}, store.Plan{}, fmt.Errorf("decision %s: %s for %s: %w", id, res.ResolvedBy, res.DecidedBy, ErrSelfOriginated)
	}
	d, rev, err := b.Get(ctx, id)
	if err != nil {
		return Decision{}, store.Plan{}, err
	}
	if d.Resolution != nil {
		return Decision{}, store.Plan{}, fmt.Errorf("decision %s: %w (%q, decided by %s)", id, ErrAlreadyResolved,
			d.Resolution.Option, d.Resolution.DecidedBy)
	}
	if !slices.Contains(d.Options, res.Option) {
		return Decision{}, store.Plan{}, fmt.Errorf("decision %s: %q: %w (%s)", id, res.Option, ErrNotAnOption,
			strings.Join(d.Options, " | "))
	}
	res.Time = b.now().UTC()
	d.Resolution, d.State = &res, StateResolved
	val, err := json.Marshal(d)
	if err != nil {
		return Decision{}, store.Plan{}, err
	}
	return d, store.Plan{
		Conds: []store.Cond{{Key: keyItem(id), ModRev: rev}},
		Ops:   []store.Op{store.Put(keyItem(id), val)},
	}, nil
}
