package confirm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// Outcome is the result of a human-surface reaction (spec: "Human-surface
// reactions return a definitive terminal result: applied: true or applied:
// false with a reason. unknown is not a terminal success and remains
// retryable under the same correlation id."). The zero Outcome is unknown.
// A terminal outcome names the reaction it is the outcome of (Item and
// Reaction): its correlation id answers that reaction alone, and a retry
// asking another is refused rather than told "applied".
type Outcome struct {
	// Known is false for unknown: not terminal, retry under the same id.
	Known   bool   `json:"known"`
	Applied bool   `json:"applied"`
	Reason  string `json:"reason,omitempty"`
	// Item and Reaction are what was asked: the item reacted to and the
	// reaction, as the requester sent them.
	Item     string    `json:"item,omitempty"`
	Reaction string    `json:"reaction,omitempty"`
	At       time.Time `json:"at,omitzero"`
}

// Unknown is the outcome that is not yet known.
var Unknown = Outcome{}

// Applied is the terminal success of reaction on item.
func Applied(item, reaction string) Outcome {
	return Outcome{Known: true, Applied: true, Item: item, Reaction: reaction}
}

// NotApplied is the terminal refusal of reaction on item, with the reason
// an operator reads; PlanOutcome refuses to record it without one.
func NotApplied(item, reaction, reason string) Outcome {
	return Outcome{Known: true, Item: item, Reaction: reaction, Reason: reason}
}

// check says why o cannot be recorded as a terminal outcome, or nil.
func (o Outcome) check() error {
	switch {
	case o.Item == "" || o.Reaction == "":
		return fmt.Errorf("%w (item %q, reaction %q)", ErrOutcomeUnbound, o.Item, o.Reaction)
	case !o.Applied && strings.TrimSpace(o.Reason) == "":
		return fmt.Errorf("reaction %s on %s: %w", o.Reaction, o.Item, ErrNoOutcomeReason)
	}
	return nil
}

// String is the reaction and its outcome as an operator reads it.
func (o Outcome) String() string {
	switch {
	case !o.Known:
		return "unknown"
	case o.Item == "" && o.Reaction == "":
		return "a reaction recorded before outcomes named theirs"
	case o.Applied:
		return fmt.Sprintf("%s on %s: applied", o.Reaction, o.Item)
	}
	return fmt.Sprintf("%s on %s: not applied (%s)", o.Reaction, o.Item, o.Reason)
}

// Reactions records reaction outcomes by requester and correlation id, as
// confirmations are keyed: the first terminal outcome of a requester's id is
// its only one, and another persona reusing the same id has its own.
type Reactions struct {
	st  store.Store
	now func() time.Time
}

// NewReactions opens the reaction record on st; now is the clock (nil: time.Now).
func NewReactions(st store.Store, now func() time.Time) *Reactions {
	if now == nil {
		now = time.Now
	}
	return &Reactions{st: st, now: now}
}

// Get returns the recorded outcome of requester's correlation id for
// reaction on item, Unknown if none. An outcome recorded for another item
// or reaction is ErrCorrelationReuse naming it: that reaction was not
// asked under the id, so it was neither applied nor refused.
func (r *Reactions) Get(ctx context.Context, requester Principal, correlationID, item, reaction string) (Outcome, error) {
	kv, err := r.st.Get(ctx, keyReaction(requester, correlationID))
	if errors.Is(err, store.ErrNotFound) {
		return Unknown, nil
	}
	if err != nil {
		return Unknown, fmt.Errorf("reaction %s: %w", correlationID, err)
	}
	var o Outcome
	if err := json.Unmarshal(kv.Value, &o); err != nil {
		return Unknown, fmt.Errorf("reaction %s: %w", correlationID, err)
	}
	if o.Item != item || o.Reaction != reaction {
		return Unknown, fmt.Errorf("correlation id %s answers %s, not %s on %s; use a new correlation id: %w",
			correlationID, o, reaction, item, ErrCorrelationReuse)
	}
	return o, nil
}

// PlanOutcome plans recording o, a terminal outcome, as requester's
// outcome of correlationID (one that names no reaction, or applied: false
// without a reason, is refused: ErrOutcomeUnbound, ErrNoOutcomeReason), guarded on there being none yet: joined with
// the reaction's own writes, the reaction and its outcome commit as one
// transaction, and a concurrent retry that committed first makes it
// conflict (read Get again).
func (r *Reactions) PlanOutcome(requester Principal, correlationID string, o Outcome) (store.Plan, error) {
	if requester.IsZero() {
		return store.Plan{}, fmt.Errorf("reaction %s: no requester identity: %w", correlationID, ErrBadPrincipal)
	}
	if _, err := NormalizeID(correlationID); err != nil {
		return store.Plan{}, fmt.Errorf("reaction correlation id: %w", err)
	}
	if !o.Known {
		return store.Plan{}, nil // unknown is never recorded: a retry decides again
	}
	if err := o.check(); err != nil {
		return store.Plan{}, err
	}
	if o.At.IsZero() {
		o.At = r.now().UTC()
	}
	val, err := json.Marshal(o)
	if err != nil {
		return store.Plan{}, err
	}
	key := keyReaction(requester, correlationID)
	return store.Plan{Conds: []store.Cond{{Key: key}}, Ops: []store.Op{store.Put(key, val)}}, nil
}
