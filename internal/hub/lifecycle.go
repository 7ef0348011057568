package hub

import (
	"context"
	"errors"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
)

// ErrNoStamp: the persona generation has no capability stamp recorded
// (the use cases' error, named here for the hub's clients).
var ErrNoStamp = usecase.ErrNoStamp

// RegisterRequest is the body of POST /v1/personas: what persona add asks.
type RegisterRequest struct {
	identityClaims
	Address        string `json:"address"`
	Name           string `json:"name"`
	Human          string `json:"human,omitempty"`
	Repository     string `json:"repository,omitempty"`
	SessionLineage string `json:"session_lineage,omitempty"`
	CharacterHash  string `json:"character_hash,omitempty"`
	// HumanSurfaces are the persona's human-surface bindings.
	HumanSurfaces []stamp.SurfaceBinding `json:"human_surfaces,omitempty"`
}

// Registered is the answer of a registration: the pending generation and
// the activation confirmation queued for its bound human.
type Registered = usecase.Registered

// Register runs the registration use case (usecase.Cases.Register) and
// waits until its records are on the stream.
func (h *Hub) Register(ctx context.Context, req RegisterRequest) (Registered, error) {
	res, err := h.cases.Register(ctx, usecase.Registration{Address: req.Address, Name: req.Name, Human: req.Human,
		Repository: req.Repository, SessionLineage: req.SessionLineage, CharacterHash: req.CharacterHash,
		HumanSurfaces: req.HumanSurfaces})
	if err != nil {
		return Registered{}, err
	}
	return res, h.Settle(ctx)
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
