package hub

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/operatorkeys"
)

// listOperators is GET /v1/operators: the enrolled humans and their SSH keys.
func listOperators(h *Hub, w http.ResponseWriter, r *http.Request, _ hubapi.Identity) error {
	ops, err := hubapi.Operators(h.cfg.Home.Dir)
	if err != nil {
		return err
	}
	keys, err := h.cases.OperatorKeys(r.Context(), "")
	if err != nil {
		return err
	}
	out := make([]hubapi.Enrolled, 0, len(ops))
	for _, o := range ops {
		e := o.Enrolled(h.cfg.Home.Dir)
		for _, k := range keys {
			if k.Human == e.Principal {
				e.SSHKeys = append(e.SSHKeys, k)
			}
		}
		out = append(out, e)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// enrolOperator is POST /v1/operators: an enrolled operator enrols another
// human, or lists SSH keys for one. Persona tokens are refused by the route
// (operators only), so a runtime cannot make itself a human through the API.
//
// The keys are listed first, in one transaction (usecase.AddOperatorKeys),
// then the token file is written: a key another human holds refuses the
// whole enrolment before anything is written, and an enrolment that fails
// after its keys were listed is completed by sending it again (listing the
// same keys for the same human is a no-op).
func enrolOperator(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	var req hubapi.EnrolRequest
	if err := decodeBody(w, r, &req, false); err != nil {
		return err
	}
	uid := hubapi.NoUID
	if req.UID != nil {
		if *req.UID < 0 {
			return hubapi.Errorf(hubapi.ErrBadUID, "uid %d: a Unix user id is 0 or more", *req.UID)
		}
		uid = *req.UID
	}
	name := strings.TrimPrefix(req.Name, "human:")
	if !hubapi.ValidOperatorName(name) {
		return fmt.Errorf("operator %q: %w: use letters, digits, '.', '_' or '-'", name, hubapi.ErrBadOperatorName)
	}
	status := http.StatusCreated
	if req.SSHKeys != "" {
		keys, err := operatorkeys.Parse(req.SSHKeys)
		if err != nil {
			return fmt.Errorf("ssh keys of human:%s: %w", name, err)
		}
		if err := h.cases.AddOperatorKeys(r.Context(), "human:"+name, keys); err != nil {
			return err
		}
	}
	_, err := hubapi.EnrolOperator(h.cfg.Home.Dir, name, uid)
	switch {
	case errors.Is(err, hubapi.ErrAlreadyEnrolled) && req.SSHKeys != "":
		status = http.StatusOK // keys listed for a human already enrolled
	case err != nil:
		return err
	}
	o, err := hubapi.ReadOperator(hubapi.OperatorTokenPath(h.cfg.Home.Dir, name))
	if err != nil {
		return fmt.Errorf("read the new enrolment back: %w", err)
	}
	e := o.Enrolled(h.cfg.Home.Dir)
	if e.SSHKeys, err = h.cases.OperatorKeys(r.Context(), e.Principal); err != nil {
		return err
	}
	h.log.Info("operator enrolled", "operator", e.Principal, "by", id.Principal, "uid", o.UID, "ssh_keys", len(e.SSHKeys))
	writeJSON(w, status, e)
	return nil
}

// removeOperator is DELETE /v1/operators/{name}: revokes a human's token
// and their SSH keys. Their requests are refused from the next one on, and
// their open streams and SSH sessions end within a second (see
// Hub.watchRevocation and sessions.go).
func removeOperator(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	name := strings.TrimPrefix(r.PathValue("name"), "human:")
	if err := hubapi.RemoveOperator(h.cfg.Home.Dir, name); err != nil {
		return err
	}
	// The token file is gone, so the keys already bind nobody
	// (SSHKeyOwner checks enrolment); removing them frees them for
	// another human, or for this one enrolled again.
	if err := h.cases.RemoveOperatorKeys(r.Context(), "human:"+name); err != nil {
		return fmt.Errorf("human:%s removed, but their SSH keys are still listed: %w", name, err)
	}
	h.log.Info("operator removed", "operator", "human:"+name, "by", id.Principal)
	w.WriteHeader(http.StatusNoContent)
	return nil
}
