package usecase

import (
	"context"
	"fmt"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/decisions"
	"github.com/virgo-hub/virgo-tui/internal/decisions/ledger"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// The executors of the decision tools (rows of the executor table).

// decisionBook is the decisions of u's store on the call's clock.
func decisionBook(u *Cases, c Call) *ledger.Book {
	return ledger.NewBook(u.st, func() time.Time { return c.Now })
}

// raiseDecision is raise_decision: a new open decision in the caller's
// scope and project (the target), with the id the tool table derived from
// the correlation id.
func raiseDecision(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	t := c.Operation.Target
	d, plan, err := decisionBook(u, c).PlanRaise(ctx, t.Value, decisions.Where{Scope: t.Scope, Project: t.Project}, c.Actor,
		decisions.Raise{Question: c.Args.Str("question"), Options: c.Args.Strings("options"), Context: c.Args.Str("context")})
	// Only a deputy cannot resolve its own decisions (the matrix): its
	// owning lead must act. Every other class resolves its own, with the
	// confirmation its boundary routes to its authority.
	lead := c.Stamp.Authority.OwningLead
	if err != nil || plan.Empty() || lead == "" {
		return d, plan, err
	}
	err = u.joinNotice(ctx, c, &plan, notice{To: lead, About: coord.About{Kind: "decision", ID: d.ID, Event: "raised"},
		Subject: "decision raised", Body: fmt.Sprintf("%s raised decision %s: %s\nRead it with list_decisions; resolve it with resolve_decision.",
			c.Persona.Address, d.ID, d.Question)})
	return d, plan, err
}

// resolveDecision is resolve_decision: the decision's one resolution,
// recording who resolved it and whose decision it is. A resolution decided
// at the relayed-resolution or lane-approval boundary (footnotes ¹ ²) is
// the deciding authority's: it is carried out only after that authority
// approved this call's confirmation, and records the authority as the
// decider — a remembered approval, or none, is refused, since "neither
// class self-originates a resolution".
func resolveDecision(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	res := decisions.Resolution{Option: c.Args.Str("choice"), Note: c.Args.Str("reason"), ResolvedBy: c.Actor, DecidedBy: c.Actor}
	if relayed(c.Decision.Boundary) {
		if c.ConfirmationID == "" {
			return nil, store.Plan{}, fmt.Errorf("%s: %w", c.Decision.Boundary.Info().Name, decisions.ErrSelfOriginated)
		}
		conf, err := u.queue.Get(ctx, c.ConfirmationID)
		if err != nil {
			return nil, store.Plan{}, err
		}
		if conf.State != confirm.StateApproved || conf.Decision == nil {
			return nil, store.Plan{}, fmt.Errorf("confirmation %s is %s: %w", conf.ID, conf.State, decisions.ErrSelfOriginated)
		}
		res.DecidedBy, res.ConfirmationID = conf.Decision.Decider, conf.ID
	}
	d, plan, err := decisionBook(u, c).PlanResolve(ctx, c.Operation.Target.Value, res)
	if err != nil || plan.Empty() || !d.RaisedBy.IsModel() {
		return d, plan, err
	}
	err = u.joinNotice(ctx, c, &plan, notice{To: d.RaisedBy.Name, About: coord.About{Kind: "decision", ID: d.ID, Event: "resolved"},
		Subject: "decision resolved", Body: fmt.Sprintf("%s resolved decision %s (%s): %s",
			c.Persona.Address, d.ID, d.Question, d.Resolution.Option)})
	return d, plan, err
}

// relayed reports whether a resolution decided at boundary b is another
// authority's decision relayed (footnotes ¹ ²).
func relayed(b confirm.BoundaryID) bool {
	return b == confirm.BoundaryRelayedResolution || b == confirm.BoundaryLaneApproval
}

// listDecisions is list_decisions: a page of the decisions of the caller's
// span (its project; its scope for a scope-wide persona; every scope for a
// root one), and for a persona that works on assigned tasks (a deputy) the
// ones it raised.
func listDecisions(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	state, err := decisions.ParseState(c.Args.Str("state"))
	if err != nil {
		return nil, store.Plan{}, err
	}
	addr, err := registry.ParseAddress(c.Persona.Address)
	if err != nil {
		return nil, store.Plan{}, err
	}
	span := decisions.Span{Scope: addr.Scope, Project: addr.Project}
	if addr.IsRoot() {
		span = decisions.Span{}
	}
	f := decisions.Filter{State: state}
	if c.Stamp.Authority.OwningLead != "" {
		f.RaisedBy = confirm.PersonaPrincipal(c.Persona.Address)
	}
	limit, _ := c.Args.Int("limit")
	page, err := decisionBook(u, c).List(ctx, span, f, c.Args.Str("after"), int(limit))
	return page, store.Plan{}, err
}

// locateDecision is the tool table's look-up of a stored decision's target.
func locateDecision(ctx context.Context, u *Cases, id string) (confirm.Target, error) {
	return ledger.NewBook(u.st, nil).Target(ctx, id)
}
