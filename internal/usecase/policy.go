package usecase

import (
	"context"
	"fmt"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/tasks/board"
)

// Caller is who asks, as the transport authenticated them (from a token,
// never from a field of the request).
type Caller struct {
	// Principal is the caller in the confirmation queue's terms.
	Principal confirm.Principal
	// PersonaID is the generation of a persona token; empty for an
	// operator.
	PersonaID string
	// Fence is the instance fence a persona runtime's request presented
	// (coord.NoFence for none): writes of a fenced-out instance are refused.
	Fence coord.Fence
}

// IsPersona reports whether the caller is a persona runtime (its requests
// are about its own generation) rather than an operator.
func (c Caller) IsPersona() bool { return c.PersonaID != "" }

// OperationRequest names one tool call of a persona, as a transport
// decoded it.
type OperationRequest struct {
	// Persona is whose stamp applies: ignored for a persona caller (its
	// own), required of an operator (an address, name or generation id).
	Persona string
	Tool    string
	// Target is the target in its kind's text form ("path:QUEUE.md").
	Target string
	Shape  string
	// CorrelationID names a confirmation request for its retries.
	CorrelationID string
}

// Authorization is the handler's whole decision on one operation.
type Authorization struct {
	// Operation is the operation as normalized under the persona's stamp
	// (without a target when normalization refused it as an escape).
	Operation confirm.Operation
	// Decision is the verdict, the boundary that decided and why.
	Decision confirm.Decision
	// StampHash is the hash of the stamp that decided.
	StampHash string
}

// Resolve finds a persona by generation id, address (its current holder)
// or name.
func (u *Cases) Resolve(ctx context.Context, ref string) (registry.Persona, error) {
	if p, err := u.reg.Get(ctx, ref); err == nil {
		return p, nil
	}
	return u.reg.Resolve(ctx, ref)
}

// guarded resolves ref and returns the condition that holds while the
// generation's record is as read.
func (u *Cases) guarded(ctx context.Context, ref string) (registry.Persona, store.Cond, error) {
	p, err := u.Resolve(ctx, ref)
	if err != nil {
		return registry.Persona{}, store.Cond{}, err
	}
	return u.reg.GetGuarded(ctx, p.ID)
}

// Policy is the handler's policy for persona generation p: its stamp
// (verified once, then cached), its learned choices, the tasks its owning
// lead or bound human assigned it (never ones a request asserts) and the
// seats' active holders (an addressed tool reaches only an active one).
// A generation whose stamp file the front end cannot prove intact
// (Config.Stamps) has no policy: every decision for it is refused, naming
// why.
func (u *Cases) Policy(ctx context.Context, p registry.Persona) (*confirm.Policy, error) {
	base, err := u.stampPolicy(ctx, p)
	if err != nil {
		return nil, err
	}
	if u.prover != nil {
		if err := u.prover.ProveStamp(ctx, p.ID); err != nil {
			return nil, fmt.Errorf("%s (%s): %w", p.Address, p.Name, err)
		}
	}
	learned, err := u.queue.Prompts().Active(ctx, p.Address, string(p.Profile), base.Keys())
	if err != nil {
		return nil, err
	}
	// Most stamps never consult assigned tasks (a lead's): no read for them.
	var assigned confirm.Assignments
	if base.ReadsAssignments() {
		set, err := board.Assigned(ctx, u.st, p.Address)
		if err != nil {
			return nil, err
		}
		assigned = set
	}
	return base.With(confirm.Options{Learned: learned, Assignments: assigned, Holders: activeSeats{ctx, Seats{u.reg}}}), nil
}

// operation is a request resolved under its persona's policy.
type operation struct {
	// guard holds while the persona's record is as read.
	guard  store.Cond
	policy *confirm.Policy
	op     confirm.Operation
	// escape is a well-formed target that normalization refused as an
	// escape from the persona's scope: Authorize decides it (a deny on the
	// cross-scope boundary); a confirmation request refuses it.
	escape error
}

// resolveOperation finds whose stamp applies to req, checks the generation
// is active, builds its policy and normalizes the operation.
func (u *Cases) resolveOperation(ctx context.Context, caller Caller, req OperationRequest) (operation, error) {
	var p registry.Persona
	var guard store.Cond
	var err error
	switch {
	case caller.IsPersona():
		p, guard, err = u.reg.GetGuarded(ctx, caller.PersonaID)
	case req.Persona == "":
		return operation{}, fmt.Errorf("an operator names the persona: send \"persona\" (an address, name or id): %w", ErrPersonaRequired)
	default:
		p, guard, err = u.guarded(ctx, req.Persona)
	}
	if err != nil {
		return operation{}, err
	}
	if p.State != registry.StateActive {
		return operation{}, fmt.Errorf("%s (%s) is %s: %w", p.Address, p.Name, p.State, ErrForbidden)
	}
	pol, err := u.Policy(ctx, p)
	if err != nil {
		return operation{}, err
	}
	shape, err := confirm.ParseShape(req.Shape)
	if err != nil {
		return operation{}, invalidOperation(err)
	}
	action, _ := pol.Tool(req.Tool) // a tool not on the stamp is denied "not exposed" by Authorize
	o := operation{guard: guard, policy: pol,
		op: confirm.Operation{Persona: p.Address, Generation: p.Generation, Tool: req.Tool, HandlerAction: action, Shape: shape}}
	if o.op.Target, err = confirm.ParseTarget(req.Target); err != nil {
		if confirm.MalformedTarget(err) {
			return operation{}, invalidOperation(err)
		}
		o.escape = err
	}
	return o, nil
}

func invalidOperation(err error) error {
	return fmt.Errorf("%w: %v", ErrInvalidOperation, err)
}

// Authorize is the handler's verdict on req for caller, with nothing
// queued: the operation normalized under the persona's stamp, and allow,
// confirm or deny with the boundary that decided. A malformed tool,
// target or shape is ErrInvalidOperation; a well-formed target that
// escapes the persona's scope is decided (a deny on the cross-scope
// boundary).
func (u *Cases) Authorize(ctx context.Context, caller Caller, req OperationRequest) (Authorization, error) {
	o, err := u.resolveOperation(ctx, caller, req)
	if err != nil {
		return Authorization{}, err
	}
	var d confirm.Decision
	if o.escape != nil {
		d = confirm.TargetRefusal(o.escape)
	} else {
		d = o.policy.Authorize(o.op)
	}
	return Authorization{Operation: o.op, Decision: d, StampHash: o.policy.Hash()}, nil
}
