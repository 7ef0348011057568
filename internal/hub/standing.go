package hub

import (
	"context"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// checkStanding checks an active generation's capability stamp
// (usecase.Cases.CheckStanding) before the hub advertises it as standing.
// A refused stamp leaves the generation offline with the problem, and its
// token is not accepted.
func (h *Hub) checkStanding(p registry.Persona) bool {
	if err := h.cases.CheckStanding(p); err != nil {
		h.tokens.Revoke(p.ID)
		h.presence.Invalidate(p.ID, "capability stamp refused: "+err.Error())
		h.log.Error("persona is not standing: its capability stamp is refused", "persona", p.Address, "err", err)
		return false
	}
	return true
}

// checkAllStamps checks the stamp of every generation of ps (the records
// loaded at start) that is active, once, after the hub started serving.
// A generation activated since is checked as its change arrives.
func (h *Hub) checkAllStamps(ctx context.Context, ps []registry.Persona) {
	for _, p := range ps {
		if ctx.Err() != nil {
			return
		}
		if p.State == registry.StateActive {
			h.checkStanding(p)
		}
	}
}
