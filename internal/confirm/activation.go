package confirm

import (
	"context"
	"fmt"
	"strconv"

	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// The pseudo-tools of the registry's own confirmations. They are not stamp
// tools: no persona can call them; only virgo-tui queues them.
const (
	ToolActivate   = "virgo.persona.activate"
	ActionActivate = "registry.activate"
	ToolRetire     = "virgo.persona.retire"
	ActionRetire   = "registry.retire"
)

// Lifecycle is what applying a decided activation or retirement needs from
// the registry (Registry.Activate, Refuse and Retire, adapted by the CLI).
type Lifecycle interface {
	Activate(ctx context.Context, personaID string) error
	Refuse(ctx context.Context, personaID, reason string) error
	Retire(ctx context.Context, personaID, reason string) error
}

// RequestActivation queues the permission change of activating a new
// persona generation's stamp, routed to its bound human, with the
// class-matrix diff attached for the decider. The requester is virgo-tui
// itself (persona add), so the bound human may decide. Asking again for the
// same generation and stamp returns the same confirmation.
func (q *Queue) RequestActivation(ctx context.Context, st *stamp.Stamp, stampHash, diffText string) (Result, error) {
	return q.lifecycle(ctx, SystemPrincipal("persona-add"), st, stampHash, KindActivation, diffText, "")
}

// RequestRetirement queues a persona's retirement, which is destructive and
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
func (q *Queue) RequestRetirement(ctx context.Context, askedBy Principal, st *stamp.Stamp, stampHash, reason string) (Result, error) {
	requester := askedBy
	if !askedBy.IsModel() {
		requester = SystemPrincipal("persona-retire")
	}
	return q.lifecycle(ctx, requester, st, stampHash, KindRetirement, "asked by "+askedBy.String()+": "+reason, reason)
}

func (q *Queue) lifecycle(ctx context.Context, requester Principal, st *stamp.Stamp, hash string, kind Kind, detail, reason string) (Result, error) {
	addr, err := NormalizeAddress(st.Path.Address)
	if err != nil {
		return Result{}, err
	}
	op := Operation{Persona: addr, Generation: st.Persona.Generation, Tool: ToolActivate, HandlerAction: ActionActivate,
		Target: Target{Kind: TargetAddress, Value: addr}, Shape: stamp.ShapePermissionChange}
	d := Decision{Verdict: Confirm, Boundary: BoundaryCredentialOrPermission, Reason: "activate the stamp of " + addr}
	if kind == KindRetirement {
		op.Tool, op.HandlerAction, op.Shape = ToolRetire, ActionRetire, stamp.ShapeDelete
		d = Decision{Verdict: Confirm, Boundary: BoundaryDestructive, Reason: "retire " + addr}
	}
	if err := checkCaller(requester, addr); err != nil {
		return Result{}, err
	}
	corr := string(kind) + "-" + st.Persona.ID + "-g" + strconv.Itoa(st.Persona.Generation)
	if _, err := NormalizeID(corr); err != nil {
		return Result{}, fmt.Errorf("%s of %s: persona id: %w", kind, addr, err)
	}
	if kind == KindRetirement {
		if corr, err = q.retirementAttempt(ctx, requester, corr); err != nil {
			return Result{}, fmt.Errorf("retirement of %s: %w", addr, err)
		}
	}
	fp := fingerprint(requester, hash, op)
	return q.enqueue(ctx, requester, pendingInput{kind: kind, op: op, stamp: st, hash: hash, decision: d,
		detail: detail, reason: reason, corr: corr, fp: fp})
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

// ApplyLifecycle carries out a decided activation or retirement through the
// registry: an approved activation activates the generation, a denied or
// expired one refuses it; an approved retirement retires the persona. It
// does nothing for an operation or a pending confirmation.
func ApplyLifecycle(ctx context.Context, c *Confirmation, reg Lifecycle) error {
	if c.Decision == nil {
		return nil
	}
	decided := string(c.Decision.Decision) + " by " + c.Decision.Decider.String()
	switch {
	case c.Kind == KindActivation && c.State == StateApproved:
		return reg.Activate(ctx, c.PersonaID)
	case c.Kind == KindActivation:
		if c.Decision.Reason != "" {
			decided = c.Decision.Reason
		}
		return reg.Refuse(ctx, c.PersonaID, decided)
	case c.Kind == KindRetirement && c.State == StateApproved:
		return reg.Retire(ctx, c.PersonaID, retireReason(c, decided))
	}
	return nil
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
