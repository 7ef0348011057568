package hub

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/operatorkeys"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
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
// (operators only), so a runtime cannot make itself a human through the
// API. The token file is not in the store, so its Idempotency-Key is kept
// around it (usecase.Once): a repeat answers the first enrolment.
//
// The keys are listed first, in one transaction (usecase.AddOperatorKeys),
// then the token file is written: a key another human holds refuses the
// whole enrolment before anything is written, and an enrolment that fails
// after its keys were listed is completed by sending it again (listing the
// same keys for the same human is a no-op). With keys, a human already
// enrolled is not an error: the keys are listed for them.
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
	key, err := idempotencyKey(r, id, req)
	if err != nil {
		return err
	}
	name := strings.TrimPrefix(req.Name, "human:")
	if !hubapi.ValidOperatorName(name) {
		return fmt.Errorf("operator %q: %w: use letters, digits, '.', '_' or '-'", name, hubapi.ErrBadOperatorName)
	}
	var keys []operatorkeys.Key
	if req.SSHKeys != "" {
		if keys, err = operatorkeys.Parse(req.SSHKeys); err != nil {
			return fmt.Errorf("ssh keys of human:%s: %w", name, err)
		}
	}
	path := hubapi.OperatorTokenPath(h.cfg.Home.Dir, name)
	enrolled, err := usecase.Once(r.Context(), h.cases, key, func(again bool) (hubapi.Enrolled, error) {
		if keys != nil {
			if err := h.cases.AddOperatorKeys(r.Context(), "human:"+name, keys); err != nil {
				return hubapi.Enrolled{}, err
			}
		}
		_, err := hubapi.EnrolOperator(h.cfg.Home.Dir, name, uid)
		switch {
		case errors.Is(err, hubapi.ErrAlreadyEnrolled) && (again || keys != nil):
			// the first attempt wrote the token file, or keys are listed
			// for a human already enrolled
		case err != nil:
			return hubapi.Enrolled{}, err
		}
		o, err := hubapi.ReadOperator(path)
		if err != nil {
			return hubapi.Enrolled{}, fmt.Errorf("read the new enrolment back: %w", err)
		}
		e := o.Enrolled(h.cfg.Home.Dir)
		if e.SSHKeys, err = h.cases.OperatorKeys(r.Context(), e.Principal); err != nil {
			return hubapi.Enrolled{}, err
		}
		h.log.Info("operator enrolled", "operator", e.Principal, "by", id.Principal, "uid", o.UID, "ssh_keys", len(e.SSHKeys))
		return e, nil
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, enrolled)
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
