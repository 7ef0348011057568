package hub

import (
	"context"
	"net/http"
	"os"
	"strconv"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// PersonaView is a persona record with its live presence (absent for
// pending and refused generations, which have no runtime).
type PersonaView struct {
	registry.Persona
	Presence *Presence `json:"presence,omitempty"`
}

func (h *Hub) view(p registry.Persona) PersonaView {
	v := PersonaView{Persona: p}
	if pr, ok := h.presence.Get(p.ID); ok {
		v.Presence = &pr
	}
	return v
}

// resolve finds a persona by generation id, address or name.
func (h *Hub) resolve(ctx context.Context, ref string) (registry.Persona, error) {
	if p, err := h.reg.Get(ctx, ref); err == nil {
		return p, nil
	}
	return h.reg.Resolve(ctx, ref)
}

// listPersonas is GET /v1/personas[?all=true].
func listPersonas(h *Hub, w http.ResponseWriter, r *http.Request, _ Identity) error {
	ps, err := h.reg.List(r.Context(), registry.ListOptions{All: r.URL.Query().Get("all") == "true"})
	if err != nil {
		return err
	}
	out := make([]PersonaView, len(ps))
	for i, p := range ps {
		out[i] = h.view(p)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// getPersona is GET /v1/personas/{ref...}: by id, address or name.
func getPersona(h *Hub, w http.ResponseWriter, r *http.Request, _ Identity) error {
	p, err := h.resolve(r.Context(), r.PathValue("ref"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, h.view(p))
	return nil
}

// seatHistory is GET /v1/seats/{address...}: every generation that held it.
func seatHistory(h *Hub, w http.ResponseWriter, r *http.Request, _ Identity) error {
	ps, err := h.reg.SeatHistory(r.Context(), r.PathValue("address"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ps)
	return nil
}

// RetireRequest is the body of POST /v1/personas/retire.
type RetireRequest struct {
	identityClaims
	// Persona is an address (its current holder), a name or a generation id.
	Persona string `json:"persona"`
	Reason  string `json:"reason"`
}

// retirePersona is POST /v1/personas/retire (operators): the generation is
// retired, its token refused from this answer on.
func retirePersona(h *Hub, w http.ResponseWriter, r *http.Request, _ Identity) error {
	var req RetireRequest
	if err := decodeBody(w, r, &req, false); err != nil {
		return err
	}
	ref := req.Persona
	if p, err := h.reg.Get(r.Context(), ref); err == nil {
		ref = p.Name
	}
	p, err := h.reg.Retire(r.Context(), ref, req.Reason)
	if err != nil {
		return err
	}
	if err := h.trackPersona(p); err != nil {
		return err
	}
	if err := h.Settle(r.Context()); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, h.view(p))
	return nil
}

// Names is the answer of GET /v1/names.
type Names struct {
	Suggestions []string `json:"suggestions"`
}

// suggestNames is GET /v1/names?n=N: free constellation names.
func suggestNames(h *Hub, w http.ResponseWriter, r *http.Request, _ Identity) error {
	n := 5
	if s := r.URL.Query().Get("n"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 || v > 100 {
			return apiErrorf(http.StatusBadRequest, "bad_query", "n=%q: want a count from 1 to 100", s)
		}
		n = v
	}
	names, err := h.reg.SuggestNames(r.Context(), n)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, Names{Suggestions: names})
	return nil
}

// Health is the answer of GET /v1/health.
type Health struct {
	PID      int      `json:"pid"`
	Epoch    string   `json:"epoch"`
	Head     uint64   `json:"head"`
	Home     string   `json:"home"`
	Versions []string `json:"versions"`
}

// health is GET /v1/health: no token needed; tells a client which hub runs.
func health(h *Hub, w http.ResponseWriter, r *http.Request, _ Identity) error {
	writeJSON(w, http.StatusOK, Health{PID: os.Getpid(), Epoch: h.stream.Epoch(), Head: h.stream.Head(),
		Home: h.cfg.Home.Dir, Versions: SupportedVersions})
	return nil
}

// whoami is GET /v1/whoami: the identity the hub derives from the token.
func whoami(h *Hub, w http.ResponseWriter, r *http.Request, id Identity) error {
	writeJSON(w, http.StatusOK, id)
	return nil
}
