package hub

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/operatorkeys"
	"github.com/virgo-hub/virgo-tui/internal/operators"
	"github.com/virgo-hub/virgo-tui/internal/operators/roll"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
)

// listOperators is GET /v1/operators: the enrolled humans — enrolled
// through any hub of the installation, as the store records them — and
// their SSH keys.
func listOperators(h *Hub, w http.ResponseWriter, r *http.Request, _ hubapi.Identity) error {
	if err := h.tokens.refreshOperators(); err != nil {
		return err // this home's files first, so a file added here is listed
	}
	all, err := h.cases.Operators(r.Context())
	if err != nil {
		return err
	}
	keys, err := h.cases.OperatorKeys(r.Context(), "")
	if err != nil {
		return err
	}
	out := make([]hubapi.Enrolled, 0, len(all))
	for _, o := range all {
		if !o.Active() {
			continue
		}
		e := hubapi.EnrolledOf(o)
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
// API. The token file is written in this hub's home (the secret, for the
// human on this host to take), then its hash, uid binding and host go into
// the store in one transaction (usecase.EnrolOperator), so every hub
// accepts the token; if that transaction does not commit, the file is
// removed. A human enrolled with SSH keys gets no token at all (enrolHere). The file is outside the store, so the Idempotency-Key is
// kept around both (usecase.Once): a repeat answers the first enrolment.
//
// With keys, a human already enrolled (through any hub) is not an error:
// the keys are listed for them, and no token is written.
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
	enrolled, err := usecase.Once(r.Context(), h.cases, key, func(again bool) (hubapi.Enrolled, error) {
		rec, err := h.enrolHere(r.Context(), name, uid, keys, again)
		if err != nil {
			return hubapi.Enrolled{}, err
		}
		e := hubapi.EnrolledOf(rec)
		if e.SSHKeys, err = h.cases.OperatorKeys(r.Context(), e.Principal); err != nil {
			return hubapi.Enrolled{}, err
		}
		h.log.Info("operator enrolled", "operator", e.Principal, "by", id.Principal, "uid", rec.UID, "host", rec.Host, "ssh_keys", len(e.SSHKeys))
		return e, nil
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, enrolled)
	return nil
}

// enrolHere enrols human name and returns their record. With keys, a
// human not enrolled yet is enrolled for the SSH console only: the record
// and the keys in one transaction, and no token anywhere, so nothing on the
// server can act as them through the socket; an operator already enrolled
// has the keys listed. Without keys: the token file in this hub's home
// first, then the record in one transaction, the file removed if that does
// not commit; again (a repeat of an enrolment whose answer was lost) takes
// the file the first attempt wrote.
func (h *Hub) enrolHere(ctx context.Context, name string, uid int, keys []operatorkeys.Key, again bool) (operators.Enrolment, error) {
	if err := h.tokens.refreshOperators(); err != nil {
		return operators.Enrolment{}, err
	}
	if cur := h.tokens.enrolmentOf(name); cur.Active() && keys != nil {
		if err := h.cases.AddOperatorKeys(ctx, cur.Principal(), keys); err != nil {
			return operators.Enrolment{}, err
		}
		return cur, nil
	}
	if keys != nil {
		rec := operators.Enrolment{Name: name, SSHOnly: true, UID: uid, Host: h.cfg.Host, Home: h.cfg.Home.Dir}
		if err := h.cases.EnrolOperator(ctx, rec, keys); err != nil {
			return operators.Enrolment{}, err
		}
		return h.learnEnrolment(ctx, name)
	}
	path := hubapi.OperatorTokenPath(h.cfg.Home.Dir, name)
	_, err := hubapi.EnrolOperator(h.cfg.Home.Dir, name, uid)
	wrote := err == nil
	if errors.Is(err, hubapi.ErrAlreadyEnrolled) && again {
		err = nil // the first attempt wrote the token file
	}
	if err != nil {
		return operators.Enrolment{}, err
	}
	o, err := hubapi.ReadOperator(path)
	if err != nil {
		return operators.Enrolment{}, fmt.Errorf("read the new enrolment back: %w", err)
	}
	rec := operators.Enrolment{Name: name, TokenSHA256: operators.HashToken(o.Token), UID: o.UID, Host: h.cfg.Host, Home: h.cfg.Home.Dir}
	if err := h.cases.EnrolOperator(ctx, rec, keys); err != nil {
		if wrote {
			if rerr := os.Remove(path); rerr != nil {
				h.log.Warn("the token file of an enrolment that did not commit could not be removed", "file", path, "err", rerr)
			}
		}
		return operators.Enrolment{}, err
	}
	return h.learnEnrolment(ctx, name)
}

// learnEnrolment reads operator name's record back into the token book, so
// this hub accepts them at once, before its watch brings the record.
func (h *Hub) learnEnrolment(ctx context.Context, name string) (operators.Enrolment, error) {
	cur, err := roll.Get(ctx, h.st, name)
	if err != nil {
		return operators.Enrolment{}, err
	}
	h.tokens.learn(cur)
	return cur, nil
}

// removeOperator is DELETE /v1/operators/{name}: ends a human's enrolment
// and removes their SSH keys, in one transaction. Their requests are refused
// from the next one on by every hub (each follows the record on its store
// watch; this one at once), and their open streams and SSH sessions end
// within a second (see Hub.watchRevocation and sessions.go). Their token
// file is removed by the hub of the home it is in: this one now, another
// host's when the record reaches it.
func removeOperator(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	name := strings.TrimPrefix(r.PathValue("name"), "human:")
	if !hubapi.ValidOperatorName(name) {
		return fmt.Errorf("operator %q: %w", name, hubapi.ErrBadOperatorName)
	}
	if err := h.tokens.refreshOperators(); err != nil {
		return err
	}
	was, err := h.cases.RemoveOperator(r.Context(), name)
	if err != nil {
		return err
	}
	if cur, err := roll.Get(r.Context(), h.st, name); err == nil {
		h.tokens.learn(cur)
	} else {
		return fmt.Errorf("human:%s removed, but this hub could not read the record back; its watch brings it: %w", name, err)
	}
	h.log.Info("operator removed", "operator", "human:"+name, "by", id.Principal, "enrolled_on", was.Host)
	w.WriteHeader(http.StatusNoContent)
	return nil
}
