package queue

import (
	"context"
	"fmt"
	"strconv"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// PlanActivation plans queueing the permission change of activating a new
// persona generation's stamp, routed to its bound human, with the
// class-matrix diff attached for the decider. The requester is virgo-tui
// itself (persona add), so the bound human may decide. Nothing is written:
// the registration use case commits the plan with the generation it
// activates. Planning again for the same generation and stamp once one is
// committed answers with that confirmation and plans nothing.
func (q *Queue) PlanActivation(ctx context.Context, st *stamp.Stamp, stampHash, diffText string) (confirm.Result, store.Plan, error) {
	in, err := q.lifecycle(ctx, confirm.SystemPrincipal("persona-add"), st, stampHash, confirm.KindActivation, diffText, "")
	if err != nil {
		return confirm.Result{}, store.Plan{}, err
	}
	return q.planEnqueue(ctx, confirm.SystemPrincipal("persona-add"), in)
}

// PlanRetirement plans queueing a persona's retirement, which is destructive and
// confirmed by its bound human. A human who asks is recorded in the detail
// and virgo-tui is the requester, as for activation, so that the operator
// who typed "persona retire" may confirm it as the bound human; a persona
// that asks is the requester itself (and, a model, never decides it).
// reason is kept as the confirmation's RequestReason: it is what the
// registry records when the retirement is approved. Asking again while a
// retirement of the generation is pending joins it; after one was denied or
// expired, asking again queues a new confirmation (a "no" is an answer to
// that request, not to every later one); once one is approved, asking
// again answers with it.
// Nothing is written: the caller (the retire use case) commits the plan
// and plans again on store.ErrConflict.
func (q *Queue) PlanRetirement(ctx context.Context, askedBy confirm.Principal, st *stamp.Stamp, stampHash, reason string) (confirm.Result, store.Plan, error) {
	requester := askedBy
	if !askedBy.IsModel() {
		requester = confirm.SystemPrincipal("persona-retire")
	}
	in, err := q.lifecycle(ctx, requester, st, stampHash, confirm.KindRetirement, "asked by "+askedBy.String()+": "+reason, reason)
	if err != nil {
		return confirm.Result{}, store.Plan{}, err
	}
	return q.planEnqueue(ctx, requester, in)
}

// lifecycle is what queueing a generation's activation or retirement asks
// for: the pseudo-operation, its boundary and its correlation id.
func (q *Queue) lifecycle(ctx context.Context, requester confirm.Principal, st *stamp.Stamp, hash string, kind confirm.Kind, detail, reason string) (pendingInput, error) {
	addr, err := confirm.NormalizeAddress(st.Path.Address)
	if err != nil {
		return pendingInput{}, err
	}
	op := confirm.Operation{Persona: addr, Generation: st.Persona.Generation, Tool: confirm.ToolActivate, HandlerAction: confirm.ActionActivate,
		Target: confirm.Target{Kind: confirm.TargetAddress, Value: addr}, Shape: stamp.ShapePermissionChange}
	d := confirm.Decision{Verdict: confirm.Confirm, Boundary: confirm.BoundaryCredentialOrPermission, Reason: "activate the stamp of " + addr}
	if kind == confirm.KindRetirement {
		op.Tool, op.HandlerAction, op.Shape = confirm.ToolRetire, confirm.ActionRetire, stamp.ShapeDelete
		d = confirm.Decision{Verdict: confirm.Confirm, Boundary: confirm.BoundaryDestructive, Reason: "retire " + addr}
	}
	if err := checkCaller(requester, addr); err != nil {
		return pendingInput{}, err
	}
	corr := string(kind) + "-" + st.Persona.ID + "-g" + strconv.Itoa(st.Persona.Generation)
	if _, err := confirm.NormalizeID(corr); err != nil {
		return pendingInput{}, fmt.Errorf("%s of %s: persona id: %w", kind, addr, err)
	}
	if kind == confirm.KindRetirement {
		if corr, err = q.retirementAttempt(ctx, requester, corr); err != nil {
			return pendingInput{}, fmt.Errorf("retirement of %s: %w", addr, err)
		}
	}
	fp := confirm.Fingerprint(requester, hash, op)
	return pendingInput{kind: kind, op: op, stamp: st, hash: hash, decision: d,
		detail: detail, reason: reason, corr: corr, fp: fp}, nil
}

// retirementAttempt is the correlation id under which a generation's
// retirement is asked now: base for the first attempt, base-2, base-3, ...
// after each attempt that ended denied or expired. An attempt that is
// pending (to join) or approved (the answer) is reused.
func (q *Queue) retirementAttempt(ctx context.Context, requester confirm.Principal, base string) (string, error) {
	now := q.now()
	for n := 1; ; n++ {
		corr := base
		if n > 1 {
			corr = base + "-" + strconv.Itoa(n)
		}
		c, ok, err := q.byCorrelation(ctx, requester, corr)
		if err != nil {
			return "", err
		}
		if !ok {
			return corr, nil
		}
		if st := c.StateAt(now); st != confirm.StateDenied && st != confirm.StateExpired {
			return corr, nil
		}
	}
}
