package usecase

import (
	"context"
	"encoding/json"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/confirm/queue"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// RequestConfirmation authorizes req for caller and, on a confirm verdict,
// queues (or joins) a confirmation routed to its authority; allow and deny
// answer at once and write nothing. The queued confirmation, its audit
// entry and its idempotency record are one transaction, guarded on the
// persona's record as read: a retirement that commits while the request is
// in flight makes the request plan again and be refused (the generation is
// no longer active), so no confirmation is admitted for a generation after
// its retirement withdrew what it had left open. A
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
	attempt := 0
	// replay answers from k's record, into a fresh result (decoding into
	// one a plan filled would keep the fields the record leaves out).
	replay := func(ctx context.Context) (bool, error) {
		var recorded confirm.Result
		ok, err := u.replayed(ctx, k, &recorded)
		if ok {
			res, answer = recorded, nil
		}
		return ok, err
	}
	err = u.commit(ctx, UseRequest, "request confirmation", func() (store.Plan, error) {
		attempt++
		// The first attempt plans before it looks for a recorded result,
		// which saves a read on every new request: its write is guarded on
		// k's record being absent, so the repeat of a committed request
		// conflicts, and the next attempt looks first. A first attempt
		// that writes nothing or fails looks at once: it may be a repeat.
		if attempt > 1 {
			if ok, err := replay(ctx); ok || err != nil {
				return store.Plan{}, err
			}
		}
		var plan store.Plan
		var perr error
		res, plan, answer, perr = u.planRequest(ctx, k, caller, req)
		if perr == nil && !plan.Empty() {
			return plan, nil
		}
		answer = nil
		if attempt == 1 {
			if ok, err := replay(ctx); ok || err != nil {
				return store.Plan{}, err
			}
		}
		return store.Plan{}, perr
	})
	if err != nil {
		return confirm.Result{}, nil, err
	}
	if answer == nil { // answered without a write: allowed, denied, or a repeat
		answer, err = json.Marshal(res)
	}
	return res, answer, err
}

// planRequest plans one attempt of RequestConfirmation: the result, the
// transaction that queues or joins its confirmation with k's record of
// the result (none for allow and deny), and the result's JSON when it
// writes.
func (u *Cases) planRequest(ctx context.Context, k Key, caller Caller, req OperationRequest) (confirm.Result, store.Plan, []byte, error) {
	o, err := u.resolveOperation(ctx, caller, req)
	if err != nil {
		return confirm.Result{}, store.Plan{}, nil, err
	}
	if o.escape != nil {
		return confirm.Result{}, store.Plan{}, nil, invalidOperation(o.escape)
	}
	res, plan, err := u.queue.PlanRequest(ctx, caller.Principal, o.policy, o.op, req.CorrelationID)
	if err != nil || plan.Empty() {
		return res, store.Plan{}, nil, err
	}
	plan.Conds = append(plan.Conds, o.guard)
	answer, err := queue.ResultJSON(res, plan)
	if err != nil {
		return confirm.Result{}, store.Plan{}, nil, err
	}
	rec, err := u.recordEncoded(k, answer)
	plan.Join(rec)
	return res, plan, answer, err
}
