package confirm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// Outcome is the result of a human-surface reaction (spec: "Human-surface
// reactions return a definitive terminal result: applied: true or applied:
// false with a reason. unknown is not a terminal success and remains
// retryable under the same correlation id."). The zero Outcome is unknown.
type Outcome struct {
	// Known is false for unknown: not terminal, retry under the same id.
	Known   bool      `json:"known"`
	Applied bool      `json:"applied"`
	Reason  string    `json:"reason,omitempty"`
	At      time.Time `json:"at,omitzero"`
}

// Unknown is the outcome that is not yet known.
var Unknown = Outcome{}

// Applied is the terminal success.
func Applied() Outcome { return Outcome{Known: true, Applied: true} }

// NotApplied is the terminal refusal, with the reason an operator reads.
func NotApplied(reason string) Outcome { return Outcome{Known: true, Reason: reason} }

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

// Get returns the recorded outcome of requester's correlation id, Unknown if
// none.
func (r *Reactions) Get(ctx context.Context, requester Principal, correlationID string) (Outcome, error) {
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
	return o, nil
}

// PlanOutcome plans recording o, a terminal outcome, as requester's
// outcome of correlationID, guarded on there being none yet: joined with
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
