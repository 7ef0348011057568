package hub

import (
	"context"
	"errors"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

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
