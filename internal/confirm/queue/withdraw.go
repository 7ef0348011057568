package queue

import (
	"context"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// PlanWithdraw plans closing what persona generation personaID left open
// when its retirement is approved: every undecided
// confirmation of that generation — its pending operation requests and,
// for a generation never activated, its pending activation — but except
// (the retirement being decided) is recorded withdrawn, with a decision
// record naming by and reason and a "withdrawn" audit entry. Withdrawn is
// terminal: a retry under the same correlation id answers denied, and a
// decision on it is refused with ErrWithdrawn. Each write is conditioned
// on the confirmation being unchanged, so the plan joins the retirement's
// own transaction. At most max confirmations are planned (a transaction
// has its limits, store.MaxTxnOps); left is how many more wait, for the
// next plan.
func (q *Queue) PlanWithdraw(ctx context.Context, personaID, except string, by confirm.Principal, reason string, max int) (plan store.Plan, left int, err error) {
	if personaID == "" {
		return plan, 0, nil
	}
	undecided, err := q.undecidedEntries(ctx)
	if err != nil {
		return plan, 0, err
	}
	now := q.now().UTC()
	for _, u := range undecided {
		if u.PersonaID != personaID || u.ID == except {
			continue
		}
		if max == 0 {
			left++
			continue
		}
		c, kv, err := q.load(ctx, u.ID)
		if err != nil {
			return store.Plan{}, 0, err
		}
		if c.State.Terminal() {
			continue
		}
		p, err := q.planDecision(c, kv, confirm.DecisionRecord{Decision: confirm.StateWithdrawn, Decider: by, Time: now, Reason: reason}, confirm.RememberNone)
		if err != nil {
			return store.Plan{}, 0, err
		}
		plan.Join(p)
		max--
	}
	return plan, left, nil
}

// WithdrawOps is how many writes PlanWithdraw plans per confirmation (its
// record, its undecided entry, its audit entry), for a caller's budget.
const WithdrawOps = 3
