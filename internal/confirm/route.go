package confirm

import (
	"context"
	"fmt"

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
	authority Principal
	binding   string
	// unroutable: the authority seat is empty; the confirmation stays
	// pending, flagged, and is never re-routed to someone else.
	unroutable bool
}

// routeFor resolves a route against the stamp's authority bindings:
// global-boundary confirmations go to the bound human (Authority.Human),
// deputy-scope ones to the active holder of the owning lead seat.
func routeFor(ctx context.Context, seats SeatHolders, st *stamp.Stamp, r Route) (routing, error) {
	switch r {
	case RouteHuman:
		if st.Authority.Human == "" {
			return routing{binding: "bound human: none on the stamp", unroutable: true}, nil
		}
		h, err := ParsePrincipal(st.Authority.Human)
		if err != nil || h.Kind != PrincipalHuman {
			return routing{binding: fmt.Sprintf("bound human %q is not human:<name>", st.Authority.Human), unroutable: true}, nil
		}
		return routing{authority: h, binding: "bound human " + h.String()}, nil
	case RouteOwningLead:
		lead := st.Authority.OwningLead
		if lead == "" {
			return routing{binding: "owning lead: none on the stamp", unroutable: true}, nil
		}
		p, err := principalOfAddress(lead)
		if err != nil {
			return routing{binding: fmt.Sprintf("owning lead %q is not an address", lead), unroutable: true}, nil
		}
		if seats == nil {
			return routing{authority: p, binding: "owning lead " + lead + ": seat holders unknown", unroutable: true}, nil
		}
		holder, ok, err := seats.ActiveHolder(ctx, lead)
		if err != nil {
			return routing{}, fmt.Errorf("look up the holder of %s: %w", lead, err)
		}
		if !ok {
			return routing{authority: p, binding: "owning lead " + lead + ": seat empty", unroutable: true}, nil
		}
		return routing{authority: p, binding: "owning lead " + lead + " held by " + holder}, nil
	}
	return routing{}, fmt.Errorf("route %v: %w", r, ErrUnknownRoute)
}
