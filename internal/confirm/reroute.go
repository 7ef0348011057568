package confirm

import (
	"context"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// PlanReroute plans re-routing the confirmations that wait on the seat at
// addr, when holder becomes its active holder (issue 10 item 8): every
// undecided confirmation that was unroutable because that seat (an owning
// lead, a lane approver) was empty is routed to the seat, its binding names
// the new holder, its expiry restarts from now, and a "rerouted" audit
// entry records the old and new binding. Each write is conditioned on the
// confirmation being unchanged, so the plan joins the activation's own
// transaction. A confirmation already past its expiry stays expired. At
// most max confirmations are planned (a transaction has its limits,
// store.MaxTxnOps); left is how many more wait, for the next plan.
func (q *Queue) PlanReroute(ctx context.Context, addr, holder string, max int) (plan store.Plan, left int, err error) {
	seat, err := principalOfAddress(addr)
	if err != nil {
		return plan, 0, err
	}
	undecided, err := q.undecidedEntries(ctx)
	if err != nil {
		return plan, 0, err
	}
	now := q.now().UTC()
	for _, u := range undecided {
		if !u.Unroutable || u.Authority != seat.String() || !now.Before(u.ExpiresAt) {
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
		if !c.Unroutable || c.effective(now) != StatePending {
			continue // its entry is older than what the record says
		}
		was := c.AuthorityBinding
		c.Unroutable = false
		c.AuthorityBinding = heldBy(seatRole(c.Route), addr, holder)
		c.ExpiresAt = now.Add(q.ttl)
		val, err := StoredJSON(c)
		if err != nil {
			return store.Plan{}, 0, err
		}
		a, err := auditOp(AuditEntry{Time: now, Event: "rerouted", ConfirmationID: c.ID, CorrelationID: c.CorrelationID,
			Actor: SystemPrincipal("reroute"), Persona: c.Operation.Persona, Operation: c.Operation.String(),
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

// RerouteOps is how many writes PlanReroute plans per confirmation (its
// record, its undecided entry and its audit entry), for a caller's budget.
const RerouteOps = 3
