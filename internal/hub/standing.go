package hub

import (
	"context"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// checkStanding checks an active generation's capability stamp — the file
// against its recorded hash, the JSON Schema and the semantic validator, so
// a stamp missing a required tool names it, then the boot check — before the hub advertises the
// generation as standing (spec: boot validation "refuses to advertise the
// persona as standing"). A refused stamp leaves the generation offline with
// the problem, and its token is not accepted. A generation registered
// without a stamp has nothing to check.
func (h *Hub) checkStanding(p registry.Persona) bool {
	if p.StampHash == "" {
		return true
	}
	st, err := h.cases.LoadStamp(p)
	if err == nil {
		err = bootCheck(st)
	}
	if err != nil {
		h.tokens.Revoke(p.ID)
		h.presence.Invalidate(p.ID, "capability stamp refused: "+err.Error())
		h.log.Error("persona is not standing: its capability stamp is refused", "persona", p.Address, "err", err)
		return false
	}
	return true
}

// bootCheck proves the three consumer projections carry the same tools and
// every handler_action and runtime binding exists (spec: "prove at boot
// that every handler and transitive runtime binding exists").
func bootCheck(st stamp.Stamp) error {
	if err := stamp.CheckProjections(stamp.ProjectTools(st.Tools)); err != nil {
		return err
	}
	return stamp.BootCheck(st, stamp.Handlers())
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
