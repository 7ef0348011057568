package hub

import (
	"net/http"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// Snapshot is the state a console starts from. It includes every change up
// to Seq (it may include a few later ones too: stream changes carry whole
// records, so applying one twice is harmless).
type Snapshot struct {
	Epoch    string        `json:"epoch"`
	Seq      uint64        `json:"seq"`
	Home     string        `json:"home"`
	Operator Identity      `json:"operator"`
	Personas []PersonaView `json:"personas"`
	// Confirmations are the pending ones.
	Confirmations []*confirm.Confirmation `json:"confirmations"`
}

// snapshot is GET /v1/snapshot.
func snapshot(h *Hub, w http.ResponseWriter, r *http.Request, id Identity) error {
	// The head is read first: everything published up to it is already in
	// the store and the tracker, so the reads below include it.
	seq := h.stream.Head()
	ps, err := h.reg.List(r.Context(), registry.ListOptions{All: true})
	if err != nil {
		return err
	}
	cs, err := h.queue.List(r.Context(), false)
	if err != nil {
		return err
	}
	snap := Snapshot{Confirmations: cs, Epoch: h.stream.Epoch(), Seq: seq, Home: h.cfg.Home.Dir, Operator: id, Personas: make([]PersonaView, len(ps))}
	for i, p := range ps {
		snap.Personas[i] = h.view(p)
	}
	writeJSON(w, http.StatusOK, snap)
	return nil
}
