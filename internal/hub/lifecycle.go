package hub

import (
	"context"
	"errors"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
)

// Register runs the registration use case (usecase.Cases.Register) and
// waits until its records are on the stream.
func (h *Hub) Register(ctx context.Context, req hubapi.RegisterRequest) (hubapi.Registered, error) {
	res, err := h.cases.Register(ctx, usecase.Registration{Address: req.Address, Name: req.Name, Human: req.Human,
		Repository: req.Repository, SessionLineage: req.SessionLineage, CharacterHash: req.CharacterHash,
		HumanSurfaces: req.HumanSurfaces})
	if err != nil {
		return hubapi.Registered{}, err
	}
	return hubapi.Registered{Persona: res.Persona, StampHash: res.StampHash, Confirmation: res.Confirmation}, h.Settle(ctx)
}

// seatHolders adapts the registry to confirm.SeatHolders.
type seatHolders struct{ reg *registry.Registry }

// ActiveHolder is the name of the seat's active holder.
func (s seatHolders) ActiveHolder(ctx context.Context, address string) (string, bool, error) {
	p, err := s.reg.Resolve(ctx, address)
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
	seats seatHolders
}

// HasActiveHolder reports whether the seat at address is actively held.
func (a activeSeats) HasActiveHolder(address string) bool {
	_, ok, err := a.seats.ActiveHolder(a.ctx, address)
	return err == nil && ok
}
