package usecase

import (
	"context"
	"fmt"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// Retirement is the answer of a retirement request: the generation and,
// for a stamped one, the retirement confirmation queued for its bound
// human (nil when the generation was retired at once).
type Retirement struct {
	Persona      registry.Persona      `json:"persona"`
	Confirmation *confirm.Confirmation `json:"confirmation,omitempty"`
}

// Retire asks for the retirement of the generation ref names (an address:
// its current holder; a name; or a generation id). Retirement is
// destructive, so for a stamped generation it is queued as a confirmation
// for the bound human (who may be the caller: then they approve it with
// Decide, which retires the generation); a generation without a stamp
// holds no capability and is retired at once, what waits on its seat
// marked unroutable (queue.Queue.PlanVacate). Either is one transaction
// with its idempotency record, guarded on the generation's record as read.
func (u *Cases) Retire(ctx context.Context, k Key, caller Caller, ref, reason string) (Retirement, error) {
	var out Retirement
	var rest overflow
	err := u.commit(ctx, UseRetire, "retire "+ref, func() (store.Plan, error) {
		rest = overflow{}
		if ok, err := u.replayed(ctx, k, &out); ok || err != nil {
			return store.Plan{}, err
		}
		p, guard, err := u.guarded(ctx, ref)
		if err != nil {
			return store.Plan{}, err
		}
		var plan store.Plan
		if p.StampHash == "" {
			p, plan, err = u.reg.PlanRetire(ctx, p.ID, reason)
			out = Retirement{Persona: p}
			if err == nil {
				// What waits on the seat it leaves becomes unroutable.
				rest = vacancy(u.queue, p.Address)
				var vacate store.Plan
				vacate, rest.left, err = rest.plan(ctx, rest.room(plan))
				plan.Join(vacate)
			}
		} else {
			plan, out, err = u.planRetirement(ctx, caller, p, reason)
		}
		if err != nil || plan.Empty() {
			return store.Plan{}, err
		}
		plan.Conds = append(plan.Conds, guard)
		rec, err := u.record(k, out)
		plan.Join(rec)
		return plan, err
	})
	if err != nil {
		return Retirement{}, err
	}
	u.finish(ctx, rest)
	if out.Confirmation == nil && out.Persona.State == registry.StateRetired {
		u.keepRetired(ctx, out.Persona.ID)
	}
	return out, nil
}

// planRetirement plans queueing (or joining) the retirement confirmation of
// stamped generation p; see queue.Queue.PlanRetirement.
func (u *Cases) planRetirement(ctx context.Context, caller Caller, p registry.Persona, reason string) (store.Plan, Retirement, error) {
	if reason == "" {
		return store.Plan{}, Retirement{}, fmt.Errorf("retire %s: %w", p.Address, registry.ErrReasonRequired)
	}
	st, err := u.LoadStamp(ctx, p)
	if err != nil {
		return store.Plan{}, Retirement{}, err
	}
	res, plan, err := u.queue.PlanRetirement(ctx, caller.Principal, &st, p.StampHash, reason)
	return plan, Retirement{Persona: p, Confirmation: res.Confirmation}, err
}
