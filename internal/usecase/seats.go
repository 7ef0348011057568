package usecase

import (
	"context"
	"errors"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/registry/roster"
)

// Seats adapts the registry to queue.SeatHolders: who holds a seat
// actively, for routing a deputy-scope confirmation to its owning lead.
type Seats struct{ Registry *roster.Registry }

// ActiveHolder is the name of the seat's active holder.
func (s Seats) ActiveHolder(ctx context.Context, address string) (string, bool, error) {
	p, err := s.Registry.Resolve(ctx, address)
	if errors.Is(err, registry.ErrNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	if p.State != registry.StateActive {
		return "", false, nil
	}
	return p.Name, true, nil
}

// activeSeats adapts the registry to confirm.Holders for one request: an
// addressed tool reaches only a seat with an active holder. A failed
// lookup admits nothing (the operation is denied, not let through).
type activeSeats struct {
	ctx   context.Context
	seats Seats
}

// HasActiveHolder reports whether the seat at address is actively held.
func (a activeSeats) HasActiveHolder(address string) bool {
	_, ok, err := a.seats.ActiveHolder(a.ctx, address)
	return err == nil && ok
}
