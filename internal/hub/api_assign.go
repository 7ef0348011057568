package hub

import (
	"context"
	"errors"
	"net/http"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// assignError answers a malformed task target as a bad operation; every
// named refusal of the assignment rules is in errorTable.
func assignError(err error) error {
	if errors.Is(err, confirm.ErrTargetSyntax) || errors.Is(err, confirm.ErrUpperCase) {
		return badOperation(err)
	}
	return err
}

// deputy resolves an active persona whose assignments are asked about.
func (h *Hub) deputy(ctx context.Context, ref string) (registry.Persona, error) {
	if ref == "" {
		return registry.Persona{}, hubapi.Errorf(hubapi.ErrPersonaRequired, "name the deputy: send \"persona\" (an address, name or id)")
	}
	return h.resolve(ctx, ref)
}

// assignTask is POST /v1/assignments: the answer is the task's assignment
// (for Remove, the one removed is not returned: 204).
func assignTask(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	var req hubapi.AssignRequest
	if err := decodeBody(w, r, &req, false); err != nil {
		return err
	}
	ctx := r.Context()
	p, err := h.deputy(ctx, req.Persona)
	if err != nil {
		return err
	}
	if p.State != registry.StateActive {
		return hubapi.Errorf(hubapi.ErrNotActive, "%s (%s) is %s: tasks are assigned to an active generation", p.Address, p.Name, p.State)
	}
	st, err := h.cases.LoadStamp(p)
	if err != nil {
		return err
	}
	by, err := id.ConfirmPrincipal()
	if err != nil {
		return err
	}
	if req.Remove {
		if err := h.queue.Unassign(ctx, by, &st, req.Task); err != nil {
			return assignError(err)
		}
		if err := h.Settle(ctx); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	a, err := h.queue.Assign(ctx, by, &st, req.Task)
	if err != nil {
		return assignError(err)
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
	p, err := h.deputy(ctx, r.URL.Query().Get("persona"))
	if err != nil {
		return err
	}
	if !id.IsHuman() && id.PersonaID != p.ID {
		st, err := h.cases.LoadStamp(p)
		if err != nil || st.Authority.OwningLead != id.Principal {
			return hubapi.Errorf(hubapi.ErrForbidden, "%s sees its own assigned tasks and, as owning lead, its deputies'", id.Principal)
		}
	}
	as, err := h.queue.Assignments(ctx, p.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, as)
	return nil
}
