package queue

import (
	"context"
	"encoding/json"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// A confirmation routed to a seat (an owning lead, a lane approver) follows
// the seat, not the generation holding it: when the holder leaves the seat
// (PlanVacate) what waits on it becomes unroutable, and when the seat's
// next holder is activated (PlanReroute) it is routed to that holder. Both
// rewrite the binding so that it never names a generation that cannot
// decide.

// PlanReroute plans re-routing the confirmations that wait on the seat at
// addr, when holder becomes its active holder: every undecided
// confirmation that is unroutable because that seat was empty is routed to
// the seat, its binding names the new holder, its expiry restarts from
// now, and a "rerouted" audit entry records the old and new binding. Each
// write is conditioned on the confirmation being unchanged, so the plan
// joins the activation's own transaction. A confirmation already past its
// expiry stays expired. At most max confirmations are planned (a
// transaction has its limits, store.MaxTxnOps); left is how many more
// wait, for the next plan.
func (q *Queue) PlanReroute(ctx context.Context, addr, holder string, max int) (plan store.Plan, left int, err error) {
	return q.planSeat(ctx, addr, true, "rerouted", max, func(c *confirm.Confirmation, now time.Time) {
		c.Unroutable = false
		c.AuthorityBinding = heldBy(seatRole(c.Route), addr, holder)
		c.ExpiresAt = now.Add(q.ttl)
	})
}

// PlanVacate plans what the seat at addr leaves waiting when its holder
// leaves it (a retirement): every undecided confirmation routed to the
// seat is marked unroutable — nobody decides it until the seat's next
// holder, to whom PlanReroute routes it — its binding names the empty seat
// instead of the generation that left, and an "unroutable" audit entry
// records the old and new binding. Its expiry is kept. Each write is
// conditioned on the confirmation being unchanged, so the plan joins the
// retirement's own transaction; max and left are as PlanReroute's.
func (q *Queue) PlanVacate(ctx context.Context, addr string, max int) (plan store.Plan, left int, err error) {
	return q.planSeat(ctx, addr, false, "unroutable", max, func(c *confirm.Confirmation, _ time.Time) {
		c.Unroutable = true
		c.AuthorityBinding = emptySeat(seatRole(c.Route), addr)
	})
}

// planSeat plans change, audited as event, on at most max of the pending
// confirmations routed to the seat at addr whose unroutable flag is
// unroutable, picked by their undecided entries.
func (q *Queue) planSeat(ctx context.Context, addr string, unroutable bool, event string, max int, change func(*confirm.Confirmation, time.Time)) (plan store.Plan, left int, err error) {
	seat, err := confirm.PrincipalOfAddress(addr)
	if err != nil {
		return plan, 0, err
	}
	undecided, err := q.undecidedEntries(ctx)
	if err != nil {
		return plan, 0, err
	}
	now := q.now().UTC()
	for _, u := range undecided {
		if u.Unroutable != unroutable || u.Authority != seat.String() || !now.Before(u.ExpiresAt) {
			continue
		}
		if max == 0 {
			left++
			continue
		}
		max--
		c, kv, err := q.load(ctx, u.ID)
		if err != nil {
			return store.Plan{}, 0, err
		}
		if c.Unroutable != unroutable || c.Authority != seat || c.StateAt(now) != confirm.StatePending {
			continue // its entry is older than what the record says
		}
		was := c.AuthorityBinding
		change(c, now)
		val, err := json.Marshal(c)
		if err != nil {
			return store.Plan{}, 0, err
		}
		a, err := auditOp(confirm.AuditEntry{Time: now, Event: event, ConfirmationID: c.ID, CorrelationID: c.CorrelationID,
			Actor: confirm.SystemPrincipal("reroute"), Persona: c.Operation.Persona, Operation: c.Operation.String(),
			Boundary: c.Boundary, Authority: c.Authority, StampHash: c.StampHash, Reason: "was " + was + "; now " + c.AuthorityBinding})
		if err != nil {
			return store.Plan{}, 0, err
		}
		entry, err := undecidedOp(c)
		if err != nil {
			return store.Plan{}, 0, err
		}
		plan.Join(store.Plan{Conds: []store.Cond{{Key: keyConfirmation(c.ID), ModRev: kv.ModRev}},
			Ops: []store.Op{store.Put(keyConfirmation(c.ID), val), entry, a}})
	}
	return plan, left, nil
}

// RerouteOps is how many writes PlanReroute and PlanVacate plan per
// confirmation (its record, its undecided entry and its audit entry), for a
// caller's budget.
const RerouteOps = 3
