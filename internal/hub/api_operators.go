package hub

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
)

// listOperators is GET /v1/operators: the enrolled humans.
func listOperators(h *Hub, w http.ResponseWriter, r *http.Request, _ hubapi.Identity) error {
	ops, err := hubapi.Operators(h.cfg.Home.Dir)
	if err != nil {
		return err
	}
	out := make([]hubapi.Enrolled, 0, len(ops))
	for _, o := range ops {
		out = append(out, o.Enrolled(h.cfg.Home.Dir))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// enrolOperator is POST /v1/operators: an enrolled operator enrols another
// human. Persona tokens are refused by the route (operators only), so a
// runtime cannot make itself a human through the API. The token file is
// not in the store, so its Idempotency-Key is kept around it
// (usecase.Once): a repeat answers the first enrolment.
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
	path := hubapi.OperatorTokenPath(h.cfg.Home.Dir, name)
	enrolled, err := usecase.Once(r.Context(), h.cases, key, func(again bool) (hubapi.Enrolled, error) {
		if again && hubapi.ValidOperatorName(name) { // the first attempt may have written the token file
			if o, err := hubapi.ReadOperator(path); err == nil {
				return o.Enrolled(h.cfg.Home.Dir), nil
			}
		}
		if _, err := hubapi.EnrolOperator(h.cfg.Home.Dir, req.Name, uid); err != nil {
			return hubapi.Enrolled{}, err
		}
		o, err := hubapi.ReadOperator(path)
		if err != nil {
			return hubapi.Enrolled{}, fmt.Errorf("read the new enrolment back: %w", err)
		}
		h.log.Info("operator enrolled", "operator", "human:"+o.Name, "by", id.Principal, "uid", o.UID)
		return o.Enrolled(h.cfg.Home.Dir), nil
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, enrolled)
	return nil
}

// removeOperator is DELETE /v1/operators/{name}: revokes a human's token.
// Their requests are refused from the next one on, and their open streams
// end within a second (see Hub.watchRevocation).
func removeOperator(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	name := strings.TrimPrefix(r.PathValue("name"), "human:")
	if err := hubapi.RemoveOperator(h.cfg.Home.Dir, name); err != nil {
		return err
	}
	h.log.Info("operator removed", "operator", "human:"+name, "by", id.Principal)
	w.WriteHeader(http.StatusNoContent)
	return nil
}
