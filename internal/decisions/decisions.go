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
	MaxContext = 8192
	// MaxOptions bounds the options of a decision.
	MaxOptions = 16
	// MaxOption bounds one option, in bytes.
	MaxOption = 256
	// MaxNote bounds a resolution's note, in bytes (multi-line).
	MaxNote = 2048
	// MaxPage is the most decisions one page of a list returns.
	MaxPage = 500
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
	ErrBadRef           = errors.New("malformed decision reference")
	ErrBadCursor        = errors.New("malformed list cursor")
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

// Ref names a decision: its scope, project and id ("d-" and a number).
type Ref struct {
	Scope   string `json:"scope"`
	Project string `json:"project"`
	ID      string `json:"id"`
}

// String is scope/project/id.
func (r Ref) String() string { return r.Scope + "/" + r.Project + "/" + r.ID }

// Target is the decision as confirm's operation target, from the record.
func (r Ref) Target() confirm.Target {
	return confirm.Target{Kind: confirm.TargetDecision, Scope: r.Scope, Project: r.Project, Value: r.ID}
}

// ParseRef reads "scope/project/d-N", normalized as confirm does.
func ParseRef(s string) (Ref, error) {
	t, err := confirm.ParseTarget("decision:" + s)
	if err != nil {
		return Ref{}, fmt.Errorf("decision %q: %w (%w)", s, ErrBadRef, err)
	}
	r := Ref{Scope: t.Scope, Project: t.Project, ID: t.Value}
	if _, err := number(r.ID); err != nil {
		return Ref{}, err
	}
	return r, nil
}

// Where is the scope and project a decision is raised in.
type Where struct {
	Scope   string `json:"scope"`
	Project string `json:"project"`
}

// ParseWhere reads "scope/project".
func ParseWhere(s string) (Where, error) {
	scope, project, ok := strings.Cut(s, "/")
	if !ok {
		return Where{}, fmt.Errorf("%q: %w: want scope/project", s, ErrBadRef)
	}
	r, err := ParseRef(scope + "/" + project + "/d-1")
	if err != nil {
		return Where{}, err
	}
	return Where{Scope: r.Scope, Project: r.Project}, nil
}

func id(n int) string { return "d-" + strconv.Itoa(n) }

func number(s string) (int, error) {
	digits, ok := strings.CutPrefix(s, "d-")
	n, err := strconv.Atoi(digits)
	if !ok || err != nil || n < 1 || n > MaxPerProject || id(n) != s {
		return 0, fmt.Errorf("decision id %q: %w: a decision id is d-1 to d-%d", s, ErrBadRef, MaxPerProject)
	}
	return n, nil
}

// Decision is the record of one decision.
type Decision struct {
	Ref
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

// The store layout: a counter per scope and project, and the records, by
// zero-padded number so that key order is raising order.
const (
	// Prefix holds every key of this package.
	Prefix     = "decisions/"
	prefixSeq  = Prefix + "seq/"
	prefixItem = Prefix + "item/"
)

func keySeq(w Where) string { return prefixSeq + w.Scope + "/" + w.Project }

func keyItem(r Ref) string {
	n, _ := number(r.ID)
	return fmt.Sprintf("%s%s/%s/%06d", prefixItem, r.Scope, r.Project, n)
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
func (b *Book) Get(ctx context.Context, r Ref) (Decision, int64, error) {
	kv, err := b.st.Get(ctx, keyItem(r))
	if errors.Is(err, store.ErrNotFound) {
		return Decision{}, 0, fmt.Errorf("decision %s: %w", r, ErrNotFound)
	}
	if err != nil {
		return Decision{}, 0, fmt.Errorf("read decision %s: %w", r, err)
	}
	var d Decision
	if err := json.Unmarshal(kv.Value, &d); err != nil {
		return Decision{}, 0, fmt.Errorf("decision %s: %w", r, err)
	}
	return d, kv.ModRev, nil
}

// List returns a page of the decisions of a scope and project in raising
// order, those in state (every state when ""), at most limit after the id
// after ("" for the first page), and the id to pass for the next page (""
// when there is none).
func (b *Book) List(ctx context.Context, w Where, state State, after string, limit int) ([]Decision, string, error) {
	if limit < 1 || limit > MaxPage {
		return nil, "", fmt.Errorf("%w: a page holds 1 to %d decisions, not %d", ErrBadCursor, MaxPage, limit)
	}
	from := ""
	if after != "" {
		if _, err := number(after); err != nil {
			return nil, "", fmt.Errorf("%w: %w", ErrBadCursor, err)
		}
		from = keyItem(Ref{Scope: w.Scope, Project: w.Project, ID: after})
	}
	kvs, err := b.st.List(ctx, prefixItem+w.Scope+"/"+w.Project+"/")
	if err != nil {
		return nil, "", fmt.Errorf("list decisions of %s/%s: %w", w.Scope, w.Project, err)
	}
	out := make([]Decision, 0, min(limit, len(kvs)))
	for _, kv := range kvs {
		if kv.Key <= from {
			continue
		}
		var d Decision
		if err := json.Unmarshal(kv.Value, &d); err != nil {
			return nil, "", fmt.Errorf("decision %s: %w", kv.Key, err)
		}
		if state != "" && d.State != state {
			continue
		}
		if len(out) == limit {
			return out, out[len(out)-1].ID, nil
		}
		out = append(out, d)
	}
	return out, "", nil
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

// PlanRaise plans a new open decision in w, raised by by. Authorization
// (may by raise in w?) is the caller's, decided on d.Ref.Target().
func (b *Book) PlanRaise(ctx context.Context, w Where, by confirm.Principal, q Raise) (Decision, store.Plan, error) {
	if err := q.check(); err != nil {
		return Decision{}, store.Plan{}, err
	}
	n, seqRev, err := b.next(ctx, w)
	if err != nil {
		return Decision{}, store.Plan{}, err
	}
	d := Decision{Ref: Ref{Scope: w.Scope, Project: w.Project, ID: id(n)}, Question: q.Question,
		Options: slices.Clone(q.Options), Context: q.Context, RaisedBy: by, Raised: b.now().UTC(), State: StateOpen}
	val, err := json.Marshal(d)
	if err != nil {
		return Decision{}, store.Plan{}, err
	}
	return d, store.Plan{
		Conds: []store.Cond{{Key: keySeq(w), ModRev: seqRev}, {Key: keyItem(d.Ref)}},
		Ops:   []store.Op{store.Put(keySeq(w), fmt.Append(nil, n)), store.Put(keyItem(d.Ref), val)},
	}, nil
}

// Next is the ref the next decision raised in w gets (what PlanRaise
// would number it now), for deciding authorization before planning.
func (b *Book) Next(ctx context.Context, w Where) (Ref, error) {
	n, _, err := b.next(ctx, w)
	return Ref{Scope: w.Scope, Project: w.Project, ID: id(n)}, err
}

func (b *Book) next(ctx context.Context, w Where) (int, int64, error) {
	kv, err := b.st.Get(ctx, keySeq(w))
	if errors.Is(err, store.ErrNotFound) {
		return 1, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("read the decision counter of %s/%s: %w", w.Scope, w.Project, err)
	}
	var last int
	if _, err := fmt.Sscan(string(kv.Value), &last); err != nil {
		return 0, 0, fmt.Errorf("decision counter of %s/%s: %w", w.Scope, w.Project, err)
	}
	if last >= MaxPerProject {
		return 0, 0, fmt.Errorf("%s/%s: %w (%d)", w.Scope, w.Project, ErrTooMany, MaxPerProject)
	}
	return last + 1, kv.ModRev, nil
}

// PlanResolve plans the decision's one resolution. res.Time is set here.
// A model resolving on another principal's decision (a secretary's relay,
// a coordinator's lane approval) must carry the approved confirmation that
// holds that decision: nobody self-originates a resolution for another.
func (b *Book) PlanResolve(ctx context.Context, r Ref, res Resolution) (Decision, store.Plan, error) {
	if err := termtext.CheckField("note", res.Note, MaxNote, true); err != nil {
		return Decision{}, store.Plan{}, err
	}
	if res.ResolvedBy.IsZero() || res.DecidedBy.IsZero() {
		return Decision{}, store.Plan{}, fmt.Errorf("decision %s: %w", r, ErrNoDecider)
	}
	if res.DecidedBy != res.ResolvedBy && res.ConfirmationID == "" {
		return Decision{}, store.Plan{}, fmt.Errorf("decision %s: %s for %s: %w", r, res.ResolvedBy, res.DecidedBy, ErrSelfOriginated)
	}
	d, rev, err := b.Get(ctx, r)
	if err != nil {
		return Decision{}, store.Plan{}, err
	}
	if d.Resolution != nil {
		return Decision{}, store.Plan{}, fmt.Errorf("decision %s: %w (%q, decided by %s)", r, ErrAlreadyResolved,
			d.Resolution.Option, d.Resolution.DecidedBy)
	}
	if !slices.Contains(d.Options, res.Option) {
		return Decision{}, store.Plan{}, fmt.Errorf("decision %s: %q: %w (%s)", r, res.Option, ErrNotAnOption,
			strings.Join(d.Options, " | "))
	}
	res.Time = b.now().UTC()
	d.Resolution, d.State = &res, StateResolved
	val, err := json.Marshal(d)
	if err != nil {
		return Decision{}, store.Plan{}, err
	}
	return d, store.Plan{
		Conds: []store.Cond{{Key: keyItem(r), ModRev: rev}},
		Ops:   []store.Op{store.Put(keyItem(r), val)},
	}, nil
}
