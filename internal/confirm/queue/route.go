package queue

import (
	"context"
	"fmt"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// SeatHolders answers who actively holds a seat. The registry implements
// it; the queue asks at request time, so a confirmation goes to the lead
// that holds the seat now, not to whoever held it when the stamp was made.
type SeatHolders interface {
	// ActiveHolder returns the active holder's identity (for display) of
	// the seat at address, or ok false when the seat is empty.
	ActiveHolder(ctx context.Context, address string) (holder string, ok bool, err error)
}

// routing is where a confirmation goes.
type routing struct {
	authority confirm.Principal
	binding   string
	// unroutable: the authority seat is empty; the confirmation stays
	// pending, flagged, and is re-routed only to the seat's next active
	// holder (Queue.PlanReroute), never to someone else.
	unroutable bool
}

// routeFor resolves a route against the stamp's authority bindings:
// global-boundary confirmations go to the bound human (Authority.Human),
// deputy-scope ones to the active holder of the owning lead seat, a
// coordinator's resolutions to its lane approver (a human, or a seat's
// active holder).
func routeFor(ctx context.Context, seats SeatHolders, st *stamp.Stamp, r confirm.Route) (routing, error) {
	switch r {
	case confirm.RouteHuman:
		if st.Authority.Human == "" {
			return routing{binding: "bound human: none on the stamp", unroutable: true}, nil
		}
		h, err := confirm.ParsePrincipal(st.Authority.Human)
		if err != nil || h.Kind != confirm.PrincipalHuman {
			return routing{binding: fmt.Sprintf("bound human %q is not human:<name>", st.Authority.Human), unroutable: true}, nil
		}
		return routing{authority: h, binding: "bound human " + h.String()}, nil
	case confirm.RouteOwningLead:
		return seatRoute(ctx, seats, "owning lead", st.Authority.OwningLead)
	case confirm.RouteLaneApprover:
		la := st.Authority.LaneApprover
		if h, err := confirm.ParsePrincipal(la); la != "" && err == nil && h.Kind == confirm.PrincipalHuman {
			return routing{authority: h, binding: "lane approver " + h.String()}, nil
		}
		return seatRoute(ctx, seats, "lane approver", la)
	}
	return routing{}, fmt.Errorf("route %v: %w", r, confirm.ErrUnknownRoute)
}

// seatRoute routes to the seat at addr, named role in the binding: to the
// seat's principal when the seat is actively held, else unroutable.
func seatRoute(ctx context.Context, seats SeatHolders, role, addr string) (routing, error) {
	if addr == "" {
		return routing{binding: role + ": none on the stamp", unroutable: true}, nil
	}
	p, err := confirm.PrincipalOfAddress(addr)
	if err != nil {
		return routing{binding: fmt.Sprintf("%s %q is not an address", role, addr), unroutable: true}, nil
	}
	if seats == nil {
		return routing{authority: p, binding: role + " " + addr + ": seat holders unknown", unroutable: true}, nil
	}
	holder, ok, err := seats.ActiveHolder(ctx, addr)
	if err != nil {
		return routing{}, fmt.Errorf("look up the holder of %s: %w", addr, err)
	}
	if !ok {
		return routing{authority: p, binding: emptySeat(role, addr), unroutable: true}, nil
	}
	return routing{authority: p, binding: heldBy(role, addr, holder)}, nil
}

// heldBy is the authority binding of a seat route with an active holder.
func heldBy(role, addr, holder string) string { return role + " " + addr + " held by " + holder }

// emptySeat is the authority binding of a seat route with no active holder.
func emptySeat(role, addr string) string { return role + " " + addr + ": seat empty" }

// seatRole names the seat a route goes to, as bindings name it.
func seatRole(r confirm.Route) string {
	if r == confirm.RouteLaneApprover {
		return "lane approver"
	}
	return "owning lead"
}
