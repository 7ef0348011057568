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
// The package holds the record, its states, bounds, named errors and the
// checks of a question and its resolution; decisions/ledger reads the store
// and plans writes (store.Plan), which the use case that calls it joins
// with its audit entry and commits in one transaction.
package decisions

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
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

// Check refuses a scope or project confirm would not normalize.
func (w Where) Check() error {
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

// CheckID refuses a decision id confirm would not normalize.
func CheckID(id string) error {
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

// Match reports whether d passes the filter.
func (f Filter) Match(d Decision) bool {
	return (f.State == "" || d.State == f.State) && (f.RaisedBy.IsZero() || d.RaisedBy == f.RaisedBy)
}

// Raise is what a raiser asks.
type Raise struct {
	Question string   `json:"question"`
	Options  []string `json:"options"`
	Context  string   `json:"context,omitempty"`
}

// Check refuses a malformed question, options or context by name.
func (q Raise) Check() error {
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
