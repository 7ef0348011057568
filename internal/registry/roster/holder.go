package roster

import (
	"context"
	"fmt"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// ActiveHolder returns the active holder of the seat at addr and the
// condition "the seat is as read": a plan that joins it commits only while
// that generation still holds the seat, so a retirement (or refusal)
// committed first makes the plan conflict and be made again. Every
// change of a seat's holder writes the seat record, and a holder read as
// active stays active until it leaves the seat, so the one condition is
// enough.
func (r *Registry) ActiveHolder(ctx context.Context, addr string) (registry.Persona, store.Cond, error) {
	seat, rev, err := r.getSeat(ctx, addr)
	if err != nil {
		return registry.Persona{}, store.Cond{}, err
	}
	if seat.Holder == "" {
		return registry.Persona{}, store.Cond{}, fmt.Errorf("%s: %w", addr, registry.ErrNoActiveHolder)
	}
	p, _, err := r.getPersona(ctx, seat.Holder)
	if err != nil {
		return registry.Persona{}, store.Cond{}, err
	}
	if p.State != registry.StateActive {
		return registry.Persona{}, store.Cond{}, fmt.Errorf("%s: %w: %s (generation %d) is %s", addr, registry.ErrNoActiveHolder, p.Name, p.Generation, p.State)
	}
	return p, store.Cond{Key: seatPrefix + addr, ModRev: rev}, nil
}
