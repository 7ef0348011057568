package hub

import (
	"net/http"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/registry/roster"
)

// snapshot is GET /v1/snapshot.
func snapshot(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	// The head is read first: everything published up to it is already in
	// the store and the tracker, so the reads below include it.
	seq := h.stream.Head()
	ps, err := h.reg.List(r.Context(), roster.ListOptions{All: true})
	if err != nil {
		return err
	}
	cs, err := h.queue.List(r.Context(), false)
	if err != nil {
		return err
	}
	kept, err := h.keptSnapshots(ps)
	if err != nil {
		h.log.Warn("cannot list the kept snapshots; the console shows none", "err", err)
	}
	snap := hubapi.Snapshot{Kept: kept, Confirmations: cs, Epoch: h.stream.Epoch(), Seq: seq, Home: h.cfg.Home.Dir, Operator: id, Personas: make([]hubapi.PersonaView, len(ps))}
	for i, p := range ps {
		snap.Personas[i] = h.view(p)
	}
	writeJSON(w, http.StatusOK, snap)
	return nil
}
