package confirm

import (
	"context"
	"encoding/json"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// PlanReroute plans re-routing the confirmations that wait on the seat at
// addr, when holder becomes its active holder (issue 10 item 8): every
// undecided confirmation that was unroutable because that seat (an owning
// lead, a lane approver) was empty is routed to the seat, its binding names
// the new holder, its expiry restarts from now, and a "rerouted" audit
// entry records the old and new binding. Each write is conditioned on the
// confirmation being unchanged, so the plan joins the activation's own
// transaction. A confirmation already past its expiry stays expired.
func (q *Queue) PlanReroute(ctx context.Context, addr, holder string) (store.Plan, error) {
	var plan store.Plan
	seat, err := principalOfAddress(addr)
	if err != nil {
		return plan, err
	}
	undecided, err := q.Undecided(ctx)
	if err != nil {
		return plan, err
	}
	now := q.now().UTC()
	for _, u := range undecided {
		if !u.Unroutable || u.Authority != seat || u.effective(now) != StatePending {
			continue
		}
		c, kv, err := q.load(ctx, u.ID)
		if err != nil {
			return store.Plan{}, err
		}
		was := c.AuthorityBinding
		c.Unroutable = false
		c.AuthorityBinding = heldBy(seatRole(c.Route), addr, holder)
		c.ExpiresAt = now.Add(q.ttl)
		val, err := json.Marshal(c)
		if err != nil {
			return store.Plan{}, err
		}
		a, err := auditOp(AuditEntry{Time: now, Event: "rerouted", ConfirmationID: c.ID, CorrelationID: c.CorrelationID,
			Actor: SystemPrincipal("reroute"), Persona: c.Operation.Persona, Operation: c.Operation.String(),
			Boundary: c.Boundary, Authority: c.Authority, StampHash: c.StampHash, Reason: "was " + was + "; now " + c.AuthorityBinding})
		if err != nil {
			return store.Plan{}, err
		}
		plan.Join(store.Plan{Conds: []store.Cond{{Key: keyConfirmation(c.ID), ModRev: kv.ModRev}},
			Ops: []store.Op{store.Put(keyConfirmation(c.ID), val), a}})
	}
	return plan, nil
}
