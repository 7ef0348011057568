package hub

import (
	"context"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// checkStanding checks an active generation's capability stamp before the
// hub advertises it as standing: the stored stamp in full
// (usecase.Cases.CheckStanding), then this host's local copy by hash, as
// every request of its runtime does later (checkStamp). A refused stamp
// leaves the generation offline with the problem, and its token is not
// accepted.
func (h *Hub) checkStanding(p registry.Persona) bool {
	err := h.cases.CheckStanding(p)
	if err == nil {
		err = h.stamps.check(p.ID, h.stampFile(p), false)
	}
	if err != nil {
		h.refuseStamp(p.ID, err)
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
