package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
)

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
func (r *Reactions) Get(ctx context.Context, requester confirm.Principal, correlationID, item, reaction string) (confirm.Outcome, error) {
	kv, err := r.st.Get(ctx, keyReaction(requester, correlationID))
	if errors.Is(err, store.ErrNotFound) {
		return confirm.Unknown, nil
	}
	if err != nil {
		return confirm.Unknown, fmt.Errorf("reaction %s: %w", correlationID, err)
	}
	var o confirm.Outcome
	if err := strictjson.DecodeOpen(kv.Value, &o); err != nil {
		return confirm.Unknown, fmt.Errorf("reaction %s: %w", correlationID, err)
	}
	if o.Item != item || o.Reaction != reaction {
		return confirm.Unknown, fmt.Errorf("correlation id %s answers %s, not %s on %s; use a new correlation id: %w",
			correlationID, o, reaction, item, confirm.ErrCorrelationReuse)
	}
	return o, nil
}

// PlanOutcome plans recording o, a terminal outcome, as requester's
// outcome of correlationID (one that names no reaction, or applied: false
// without a reason, is refused: ErrOutcomeUnbound, ErrNoOutcomeReason), guarded on there being none yet: joined with
// the reaction's own writes, the reaction and its outcome commit as one
// transaction, and a concurrent retry that committed first makes it
// conflict (read Get again).
func (r *Reactions) PlanOutcome(requester confirm.Principal, correlationID string, o confirm.Outcome) (store.Plan, error) {
	if requester.IsZero() {
		return store.Plan{}, fmt.Errorf("reaction %s: no requester identity: %w", correlationID, confirm.ErrBadPrincipal)
	}
	if _, err := confirm.NormalizeID(correlationID); err != nil {
		return store.Plan{}, fmt.Errorf("reaction correlation id: %w", err)
	}
	if !o.Known {
		return store.Plan{}, nil // unknown is never recorded: a retry decides again
	}
	if err := o.Check(); err != nil {
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
