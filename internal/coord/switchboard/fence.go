package switchboard

import (
	"context"
	"fmt"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// fenceRecord is a generation's latest claimed fence, and when it was
// claimed: what names the newer instance to one it fenced out.
type fenceRecord struct {
	Fence coord.Fence `json:"fence"`
	At    time.Time   `json:"at,omitzero"`
}

// claimed names the instance holding rec: when it claimed its fence.
func (rec fenceRecord) claimed() string {
	if rec.At.IsZero() {
		return "claimed before this hub recorded claim times"
	}
	return "claimed at " + rec.At.UTC().Format(time.RFC3339)
}

func keyFence(personaID string) string { return PrefixFence + personaID }

// PlanClaim plans a new instance fence for generation personaID: one more
// than any claimed before. Committed, it fences out every older instance.
// The caller joins the condition that the generation still holds its seat.
func (b *Book) PlanClaim(ctx context.Context, personaID string) (coord.Fence, store.Plan, error) {
	var rec fenceRecord
	rev, err := store.GetJSON(ctx, b.st, keyFence(personaID), &rec)
	if err != nil {
		return coord.NoFence, store.Plan{}, err
	}
	rec.Fence++
	rec.At = b.now().UTC()
	op, err := store.PutJSON(keyFence(personaID), rec)
	if err != nil {
		return coord.NoFence, store.Plan{}, err
	}
	return rec.Fence, store.Plan{Conds: []store.Cond{{Key: op.Key, ModRev: rev}}, Ops: []store.Op{op}}, nil
}

// Check decides whether a request of generation personaID presenting
// fence may act: yes when it presents the generation's latest fence, or
// presents none while no instance ever claimed one. It returns the
// condition that keeps the answer true until commit: a write that joins it
// conflicts if a newer instance claims a fence first, and is then decided
// again — and refused. Any other fence is ErrFenced.
func (b *Book) Check(ctx context.Context, personaID string, fence coord.Fence) (store.Cond, error) {
	var rec fenceRecord
	rev, err := store.GetJSON(ctx, b.st, keyFence(personaID), &rec)
	if err != nil {
		return store.Cond{}, err
	}
	switch {
	case fence == rec.Fence:
		return store.Cond{Key: keyFence(personaID), ModRev: rev}, nil
	case fence == coord.NoFence:
		return store.Cond{}, fmt.Errorf("%w: this call presents no fence, and a runtime instance of this generation holds one (%s): present it (header Virgo-Fence; $VIRGO_FENCE for a command), or claim a new one (POST /v1/fence) to take over", coord.ErrFenced, rec.claimed())
	case fence > rec.Fence:
		return store.Cond{}, fmt.Errorf("%w: fence %d was never claimed (the latest one was %s); claim one with POST /v1/fence", coord.ErrFenced, fence, rec.claimed())
	}
	return store.Cond{}, fmt.Errorf("%w: a newer instance of this generation holds its fence (%s); this instance must stop — start it again to take over", coord.ErrFenced, rec.claimed())
}

// ClaimedAt is when the instance holding fence claimed it: the instance
// provenance of what it sends (Sender.InstanceSince). Nil for NoFence, for
// a fence that is not the generation's latest, or for one claimed before
// the hub recorded claim times.
func (b *Book) ClaimedAt(ctx context.Context, personaID string, fence coord.Fence) (*time.Time, error) {
	if fence == coord.NoFence {
		return nil, nil
	}
	var rec fenceRecord
	if _, err := store.GetJSON(ctx, b.st, keyFence(personaID), &rec); err != nil {
		return nil, err
	}
	if rec.Fence != fence || rec.At.IsZero() {
		return nil, nil
	}
	at := rec.At.UTC()
	return &at, nil
}
