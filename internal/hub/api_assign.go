package hub

import (
	"net/http"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// assignTask is POST /v1/assignments: the answer is the task's assignment
// (for Remove, the one removed is not returned: 204). Who assigns is the
// token's identity (usecase.Cases.Assign, Unassign).
func assignTask(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	var req hubapi.AssignRequest
	if err := decodeBody(w, r, &req, false); err != nil {
		return err
	}
	by, err := callerOf(id)
	if err != nil {
		return err
	}
	key, err := idempotencyKey(r, id, req)
	if err != nil {
		return err
	}
	ctx := r.Context()
	if req.Remove {
		if err := h.cases.Unassign(ctx, key, by, req.Persona, req.Task); err != nil {
			return err
		}
		if err := h.Settle(ctx); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	a, err := h.cases.Assign(ctx, key, by, req.Persona, req.Task)
	if err != nil {
		return err
	}
	if err := h.Settle(ctx); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a)
	return nil
}

// listAssignments is GET /v1/assignments?persona=REF: the tasks assigned to
// the persona's generation. A persona token sees its own and, as owning
// lead, its deputies'.
func listAssignments(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	ctx := r.Context()
	ref := r.URL.Query().Get("persona")
	if ref == "" {
		return hubapi.Errorf(hubapi.ErrPersonaRequired, "name the deputy: send \"persona\" (an address, name or id)")
	}
	p, err := h.cases.Resolve(ctx, ref)
	if err != nil {
		return err
	}
	if !id.IsHuman() && id.PersonaID != p.ID {
		st, err := h.cases.LoadStamp(ctx, p)
		if err != nil || st.Authority.OwningLead != id.Principal {
			return hubapi.Errorf(hubapi.ErrForbidden, "%s sees its own assigned tasks and, as owning lead, its deputies'", id.Principal)
		}
	}
	as, err := h.cases.Assignments(ctx, p.Address)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, as)
	return nil
}
