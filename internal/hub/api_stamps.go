package hub

import (
	"context"
	"net/http"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// getStamp is GET /v1/stamps/{ref...}: the stamp of a persona (id, address
// or name), read from the store and checked against its recorded hash, so
// a runtime on any host gets its stamp here. A persona token reads only its
// own.
func getStamp(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	p, err := h.resolveReadable(r.Context(), id, r.PathValue("ref"), "capability stamp")
	if err != nil {
		return err
	}
	st, err := h.cases.LoadStamp(r.Context(), p)
	if err != nil {
		return err
	}
	// The stored stamp is intact, but a local copy on this host that
	// differs refuses the generation (stampwatch.go).
	if err := h.checkStamp(r.Context(), p.ID); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, hubapi.StampView{PersonaID: p.ID, Address: p.Address, Hash: p.StampHash, Stamp: st})
	return nil
}

// diffStamps is GET /v1/stamps/diff?from=A&to=B: each side a capability
// profile (a class), a persona reference, or empty for "nothing".
func diffStamps(h *Hub, w http.ResponseWriter, r *http.Request, _ hubapi.Identity) error {
	q := r.URL.Query()
	fromLabel, from, err := h.diffSide(r.Context(), q.Get("from"))
	if err != nil {
		return err
	}
	toLabel, to, err := h.diffSide(r.Context(), q.Get("to"))
	if err != nil {
		return err
	}
	d := stamp.DiffTools(fromLabel, from, toLabel, to)
	writeJSON(w, http.StatusOK, hubapi.DiffView{Diff: d, Text: stamp.RenderDiff(d)})
	return nil
}

func (h *Hub) diffSide(ctx context.Context, ref string) (string, []stamp.Tool, error) {
	if ref == "" {
		return stamp.Nothing, nil, nil
	}
	for _, p := range registry.Profiles {
		if string(p) == ref {
			return ref, stamp.ToolsFor(p), nil
		}
	}
	p, err := h.cases.Resolve(ctx, ref)
	if err != nil {
		return "", nil, err
	}
	st, err := h.cases.LoadStamp(ctx, p)
	if err != nil {
		return "", nil, err
	}
	return p.Address + " (" + p.Name + ")", st.Tools, nil
}
