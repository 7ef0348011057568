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
		err = h.stamps.check(p.ID, h.stampPath(p.ID), stampSeen{hash: keep(p.StampHash)}, false)
	}
	if err != nil {
		h.refuseStamp(p.ID, err)
		return false
	}
	return true
}

// StartChecked is the message a hub logs once it has checked the stamp of
// every active generation it loaded at start, and let go of the database
// pages its start read: from then on it holds what serving needs.
const StartChecked = "capability stamps checked"

// checkAllStamps checks the stamp of every generation of ps (the records
// loaded at start) that is active, once, after the hub started serving.
// A generation activated since is checked as its change arrives.
// It returns how many it checked.
func (h *Hub) checkAllStamps(ctx context.Context, ps []registry.Persona) int {
	n := 0
	for _, p := range ps {
		if ctx.Err() != nil {
			return n
		}
		if p.State == registry.StateActive {
			h.checkStanding(p)
			n++
		}
	}
	return n
}
