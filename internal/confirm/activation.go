package confirm

import (
	"context"
	"fmt"
	"strconv"

	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// The pseudo-tools of the registry's own confirmations. They are not stamp
// tools: no persona can call them; only virgo-tui queues them.
const (
	ToolActivate   = "virgo.persona.activate"
	ActionActivate = "registry.activate"
	ToolRetire     = "virgo.persona.retire"
	ActionRetire   = "registry.retire"
)

// PlanActivation plans queueing the permission change of activating a new
// persona generation's stamp, routed to its bound human, with the
// class-matrix diff attached for the decider. The requester is virgo-tui
// itself (persona add), so the bound human may decide. Nothing is written:
// the registration use case commits the plan with the generation it
// activates. Planning again for the same generation and stamp once one is
// committed answers with that confirmation and plans nothing.
func (q *Queue) PlanActivation(ctx context.Context, st *stamp.Stamp, stampHash, diffText string) (Result, store.Plan, error) {
	in, err := q.lifecycle(ctx, SystemPrincipal("persona-add"), st, stampHash, KindActivation, diffText, "")
	if err != nil {
		return Result{}, store.Plan{}, err
	}
	return q.planEnqueue(ctx, SystemPrincipal("persona-add"), in)
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
func (q *Queue) PlanRetirement(ctx context.Context, askedBy Principal, st *stamp.Stamp, stampHash, reason string) (Result, store.Plan, error) {
	requester := askedBy
	if !askedBy.IsModel() {
		requester = SystemPrincipal("persona-retire")
	}
	in, err := q.lifecycle(ctx, requester, st, stampHash, KindRetirement, "asked by "+askedBy.String()+": "+reason, reason)
	if err != nil {
		return Result{}, store.Plan{}, err
	}
	return q.planEnqueue(ctx, requester, in)
}

// lifecycle is what queueing a generation's activation or retirement asks
// for: the pseudo-operation, its boundary and its correlation id.
func (q *Queue) lifecycle(ctx context.Context, requester Principal, st *stamp.Stamp, hash string, kind Kind, detail, reason string) (pendingInput, error) {
	addr, err := NormalizeAddress(st.Path.Address)
	if err != nil {
		return pendingInput{}, err
	}
	op := Operation{Persona: addr, Generation: st.Persona.Generation, Tool: ToolActivate, HandlerAction: ActionActivate,
		Target: Target{Kind: TargetAddress, Value: addr}, Shape: stamp.ShapePermissionChange}
	d := Decision{Verdict: Confirm, Boundary: BoundaryCredentialOrPermission, Reason: "activate the stamp of " + addr}
	if kind == KindRetirement {
		op.Tool, op.HandlerAction, op.Shape = ToolRetire, ActionRetire, stamp.ShapeDelete
		d = Decision{Verdict: Confirm, Boundary: BoundaryDestructive, Reason: "retire " + addr}
	}
	if err := checkCaller(requester, addr); err != nil {
		return pendingInput{}, err
	}
	corr := string(kind) + "-" + st.Persona.ID + "-g" + strconv.Itoa(st.Persona.Generation)
	if _, err := NormalizeID(corr); err != nil {
		return pendingInput{}, fmt.Errorf("%s of %s: persona id: %w", kind, addr, err)
	}
	if kind == KindRetirement {
		if corr, err = q.retirementAttempt(ctx, requester, corr); err != nil {
			return pendingInput{}, fmt.Errorf("retirement of %s: %w", addr, err)
		}
	}
	fp := fingerprint(requester, hash, op)
	return pendingInput{kind: kind, op: op, stamp: st, hash: hash, decision: d,
		detail: detail, reason: reason, corr: corr, fp: fp}, nil
}

// retirementAttempt is the correlation id under which a generation's
// retirement is asked now: base for the first attempt, base-2, base-3, ...
// after each attempt that ended denied or expired. An attempt that is
// pending (to join) or approved (the answer) is reused.
func (q *Queue) retirementAttempt(ctx context.Context, requester Principal, base string) (string, error) {
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
		if st := c.effective(now); st != StateDenied && st != StateExpired {
			return corr, nil
		}
	}
}

// Effect is what a decided activation or retirement does to its
// generation in the registry.
type Effect string

// The lifecycle effects of a decision.
const (
	// EffectNone: an operation, a pending confirmation, or a denied or
	// expired retirement changes no generation.
	EffectNone Effect = ""
	// EffectActivate: an approved activation activates the generation.
	EffectActivate Effect = "activate"
	// EffectRefuse: a denied or expired activation refuses it.
	EffectRefuse Effect = "refuse"
	// EffectRetire: an approved retirement retires it.
	EffectRetire Effect = "retire"
)

// LifecycleEffect is the effect of decided confirmation c on its
// generation, with the reason the registry records (for a refusal or a
// retirement). The decision and its effect commit in one transaction.
func LifecycleEffect(c *Confirmation) (Effect, string) {
	if c.Decision == nil {
		return EffectNone, ""
	}
	decided := string(c.Decision.Decision) + " by " + c.Decision.Decider.String()
	switch {
	case c.Kind == KindActivation && c.State == StateApproved:
		return EffectActivate, ""
	case c.Kind == KindActivation:
		if c.Decision.Reason != "" {
			decided = c.Decision.Reason
		}
		return EffectRefuse, decided
	case c.Kind == KindRetirement && c.State == StateApproved:
		return EffectRetire, retireReason(c, decided)
	}
	return EffectNone, ""
}

// retireReason is what the registry records for an approved retirement:
// the reason its requester gave, with the decider's note when there is
// one. A confirmation stored before requests kept their reason falls back
// to the decision.
func retireReason(c *Confirmation, decided string) string {
	switch {
	case c.RequestReason == "" && c.Decision.Reason != "":
		return c.Decision.Reason
	case c.RequestReason == "":
		return decided
	case c.Decision.Reason != "":
		return c.RequestReason + " (" + decided + ": " + c.Decision.Reason + ")"
	}
	return c.RequestReason
}
