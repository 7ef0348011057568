package usecase

import (
	"context"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/confirm/queue"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// A decision's lifecycle effect can reach many confirmations: those waiting
// on a seat that an activation fills, those a retired generation left
// open. A transaction holds at most store.MaxTxnOps writes (etcd's limit,
// kept on every backend), so the decision's transaction carries as many as
// fit and the rest follow in transactions of their own, right after it.
// A crash between them leaves confirmations of a retired generation
// undecided; the expiry sweep withdraws them (closeRetired). Confirmations
// not re-routed stay unroutable and expire, as they would have without the
// activation.

// overflowReserve is room kept in a decision's transaction for what joins
// it after its effect (the idempotency record).
const overflowReserve = 4

// overflow is the part of a lifecycle effect that did not fit a decision's
// transaction.
type overflow struct {
	what string
	// plan plans at most max more confirmations and says how many wait.
	plan func(ctx context.Context, max int) (store.Plan, int, error)
	per  int // writes per confirmation
	left int
}

// room is how many confirmations fit beside p in one transaction.
func (o overflow) room(p store.Plan) int {
	return max(0, min((store.MaxTxnOps-overflowReserve-len(p.Ops))/o.per, store.MaxTxnOps-overflowReserve-len(p.Conds)))
}

// withdrawal is the generation's undecided confirmations, withdrawn.
func withdrawal(q *queue.Queue, personaID, except string, by confirm.Principal, reason string) overflow {
	return overflow{what: "withdraw what " + personaID + " left open", per: queue.WithdrawOps,
		plan: func(ctx context.Context, max int) (store.Plan, int, error) {
			return q.PlanWithdraw(ctx, personaID, except, by, reason, max)
		}}
}

// vacancy is what waits on the seat at addr, marked unroutable until the
// seat's next holder (queue.Queue.PlanVacate).
func vacancy(q *queue.Queue, addr string) overflow {
	return overflow{what: "mark unroutable what waits on " + addr, per: queue.RerouteOps,
		plan: func(ctx context.Context, max int) (store.Plan, int, error) {
			return q.PlanVacate(ctx, addr, max)
		}}
}

// retirement is the overflow of p's retirement: what the generation left
// open, withdrawn (but except, the retirement being decided), then what
// waits on its seat for a decision, marked unroutable (vacancy).
func retirement(q *queue.Queue, p registry.Persona, except string, by confirm.Principal, reason string) overflow {
	w, v := withdrawal(q, p.ID, except, by, reason), vacancy(q, p.Address)
	return overflow{what: "close what " + p.Address + " (" + p.ID + ") left open", per: max(w.per, v.per),
		plan: func(ctx context.Context, n int) (store.Plan, int, error) {
			plan, left, err := w.plan(ctx, n)
			if err != nil {
				return store.Plan{}, 0, err
			}
			vacate, more, err := v.plan(ctx, max(0, n-len(plan.Ops)/w.per))
			plan.Join(vacate)
			return plan, left + more, err
		}}
}

// finish commits an overflow in transactions within the limits, each
// planned afresh. It logs a failure rather than return it: the decision
// has committed and is the caller's answer; the sweep closes what a
// retirement left open.
func (u *Cases) finish(ctx context.Context, o overflow) {
	for o.left > 0 {
		err := u.commit(ctx, UseDecide, o.what, func() (store.Plan, error) {
			p, left, err := o.plan(ctx, o.room(store.Plan{}))
			o.left = left
			return p, err
		})
		if err != nil {
			u.log.Error("could not "+o.what+"; the expiry sweep retries a withdrawal", "err", err)
			return
		}
	}
}

// closeRetired withdraws the undecided confirmations of retired
// generations among pending: what a retirement's follow-up transactions
// did not get to.
func (u *Cases) closeRetired(ctx context.Context, pending []*confirm.Confirmation) {
	seen := map[string]bool{}
	for _, c := range pending {
		if c.PersonaID == "" || seen[c.PersonaID] {
			continue
		}
		seen[c.PersonaID] = true
		p, err := u.reg.Get(ctx, c.PersonaID)
		if err != nil || p.State != registry.StateRetired {
			continue
		}
		o := withdrawal(u.queue, p.ID, "", confirm.SystemPrincipal("retirement"), "withdrawn: "+p.Address+" was retired")
		o.left = 1
		u.finish(ctx, o)
	}
}

// closeVacated marks unroutable the confirmations among pending still
// routed to a seat that has no active holder: what a retirement's
// follow-up transactions did not get to, or what an older virgo-tui left
// routed to a retired lead. The seat's next holder then receives them
// (queue.Queue.PlanReroute).
func (u *Cases) closeVacated(ctx context.Context, pending []*confirm.Confirmation) {
	seen := map[string]bool{}
	for _, c := range pending {
		addr := c.Authority.Name
		if c.Unroutable || c.Authority.Kind != confirm.PrincipalPersona || seen[addr] {
			continue
		}
		seen[addr] = true
		if _, held, err := (Seats{u.reg}).ActiveHolder(ctx, addr); err != nil || held {
			continue
		}
		o := vacancy(u.queue, addr)
		o.left = 1
		u.finish(ctx, o)
	}
}
