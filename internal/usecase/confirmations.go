package usecase

import (
	"context"
	"encoding/json"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// RequestConfirmation authorizes req for caller and, on a confirm verdict,
// queues (or joins) a confirmation routed to its authority; allow and deny
// answer at once and write nothing. The queued confirmation, its audit
// entry and its idempotency record are one transaction, guarded on the
// persona's record as read: a retirement that commits while the request is
// in flight makes the request plan again and be refused (the generation is
// no longer active), so no confirmation is admitted for a generation after
// its retirement withdrew what it had left open (issue 10 item 9). A
// target that escapes the persona's scope is refused (ErrInvalidOperation),
// not queued.
//
// With a Key, a request that queued or joined a confirmation is answered
// again from its record; the correlation id already makes retries of the
// same operation answer the same confirmation.
//
// answer is res encoded as JSON, what the hub sends: a request that queues
// or joins records these very bytes as its result, so the result is
// encoded once, not once for the record and again for the reply.
func (u *Cases) RequestConfirmation(ctx context.Context, k Key, caller Caller, req OperationRequest) (res confirm.Result, answer []byte, err error) {
	err = u.commit(ctx, UseRequest, "request confirmation", func() (store.Plan, error) {
		answer = nil
		if ok, err := u.replayed(ctx, k, &res); ok || err != nil {
			return store.Plan{}, err
		}
		o, err := u.resolveOperation(ctx, caller, req)
		if err != nil {
			return store.Plan{}, err
		}
		if o.escape != nil {
			return store.Plan{}, invalidOperation(o.escape)
		}
		var plan store.Plan
		res, plan, err = u.queue.PlanRequest(ctx, caller.Principal, o.policy, o.op, req.CorrelationID)
		if err != nil || plan.Empty() {
			return store.Plan{}, err
		}
		plan.Conds = append(plan.Conds, o.guard)
		if answer, err = confirm.ResultJSON(res, plan); err != nil {
			return store.Plan{}, err
		}
		rec, err := u.recordEncoded(k, answer)
		plan.Join(rec)
		return plan, err
	})
	if err != nil {
		return confirm.Result{}, nil, err
	}
	if answer == nil { // answered without a write: allowed, denied, or a repeat
		answer, err = json.Marshal(res)
	}
	return res, answer, err
}
