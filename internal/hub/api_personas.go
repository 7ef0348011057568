package hub

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/registry/roster"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
)

func (h *Hub) view(p registry.Persona) hubapi.PersonaView {
	v := hubapi.PersonaView{Persona: p}
	if pr, ok := h.presence.Get(p.ID); ok {
		v.Presence = &pr
	}
	return v
}

// listPersonas is GET /v1/personas[?all=true][&presence=false]: each
// record as the store holds it (registry.Record: no decode and encode of
// every persona), with its presence unless presence=false — `persona list`
// reads only the records.
func listPersonas(h *Hub, w http.ResponseWriter, r *http.Request, _ hubapi.Identity) error {
	q := r.URL.Query()
	recs, err := h.reg.ListRecords(r.Context(), roster.ListOptions{All: q.Get("all") == "true"})
	if err != nil {
		return err
	}
	presence := h.presence.Get
	if q.Get("presence") == "false" {
		presence = nil
	}
	b, err := hubapi.MarshalRecordViews(recs, presence)
	if err != nil {
		return err
	}
	writeJSONBytes(w, http.StatusOK, b)
	return nil
}

// resolveReadable resolves ref for a caller who reads what it names: an
// operator reads every persona; a persona token only its own generation
// (other personas' records, presence and stamps are for
// operators). To a persona token an unknown ref and another persona's
// answer alike, 403, so that a persona cannot probe who else exists.
func (h *Hub) resolveReadable(ctx context.Context, id hubapi.Identity, ref, what string) (registry.Persona, error) {
	p, err := h.cases.Resolve(ctx, ref)
	if id.IsHuman() {
		return p, err
	}
	if err != nil || p.ID != id.PersonaID {
		return registry.Persona{}, fmt.Errorf("%w: the %s of %q is for operators; %s reads only its own", hubapi.ErrForbidden, what, ref, id.Principal)
	}
	return p, nil
}

// getPersona is GET /v1/personas/{ref...}: by id, address or name; a
// persona token reads only its own.
func getPersona(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	p, err := h.resolveReadable(r.Context(), id, r.PathValue("ref"), "record and presence")
	if err != nil {
		return err
	}
	if p.State == registry.StateActive {
		// What is shown of its standing is its stamp file as it is now,
		// not as the last request or sweep found it; why it does not
		// stand is the presence's problem.
		h.checkStamp(r.Context(), p.ID)
	}
	b, err := h.view(p).MarshalJSON()
	if err != nil {
		return err
	}
	writeJSONBytes(w, http.StatusOK, b)
	return nil
}

// writeJSONBytes writes an encoded JSON answer as writeJSON does: the
// document, then a newline.
func writeJSONBytes(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// seatHistory is GET /v1/seats/{address...}: every generation that held it.
func seatHistory(h *Hub, w http.ResponseWriter, r *http.Request, _ hubapi.Identity) error {
	ps, err := h.reg.SeatHistory(r.Context(), r.PathValue("address"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ps)
	return nil
}

// retirePersona is POST /v1/personas/retire. Retirement is destructive, so
// for a stamped generation it is queued as a confirmation for the bound
// human (who may be the caller: then approve it with decide); the token
// stops working the moment it is approved. A generation without a stamp
// holds no capability, and is retired at once (usecase.Cases.Retire).
func retirePersona(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	var req hubapi.RetireRequest
	if err := decodeBody(w, r, &req, false); err != nil {
		return err
	}
	caller, err := callerOf(id)
	if err != nil {
		return err
	}
	key, err := idempotencyKey(r, id, req)
	if err != nil {
		return err
	}
	ctx := r.Context()
	res, err := h.cases.Retire(ctx, key, caller, req.Persona, req.Reason)
	if err != nil {
		return err
	}
	if res.Confirmation == nil { // retired at once
		if err := h.trackPersona(res.Persona, true); err != nil {
			return err
		}
	}
	if err := h.Settle(ctx); err != nil {
		return err
	}
	status := http.StatusAccepted
	if res.Confirmation == nil {
		status = http.StatusOK
	}
	writeJSON(w, status, hubapi.Retirement{Persona: h.view(res.Persona), Confirmation: res.Confirmation})
	return nil
}

// registerPersona is POST /v1/personas (operators): the registration use
// case (usecase.Cases.Register), answered once its records are on the
// stream; with ?dry_run=1 the same use case's preview, writing nothing.
func registerPersona(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	var req hubapi.RegisterRequest
	if err := decodeBody(w, r, &req, false); err != nil {
		return err
	}
	if req.Human == "" && id.IsHuman() {
		req.Human = id.Principal // the caller, never the hub process's $USER
	}
	ctx := r.Context()
	in := usecase.Registration{Registration: registry.Registration{Address: req.Address, Name: req.Name, Human: req.Human,
		Repository: req.Repository, SessionLineage: req.SessionLineage, CharacterHash: req.CharacterHash},
		HumanSurfaces: req.HumanSurfaces}
	if r.URL.Query().Get("dry_run") == "1" {
		pv, err := h.cases.Preview(ctx, in)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, hubapi.RegistrationPreview{Persona: pv.Persona, StampHash: pv.StampHash, Stamp: pv.Stamp, Previous: pv.Previous})
		return nil
	}
	key, err := idempotencyKey(r, id, req)
	if err != nil {
		return err
	}
	res, err := h.cases.Register(ctx, key, in)
	if err != nil {
		return err
	}
	if err := h.Settle(ctx); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, hubapi.Registered{Persona: res.Persona, StampHash: res.StampHash, Confirmation: res.Confirmation})
	return nil
}

// suggestNames is GET /v1/names?n=N: free constellation names.
func suggestNames(h *Hub, w http.ResponseWriter, r *http.Request, _ hubapi.Identity) error {
	n := 5
	if s := r.URL.Query().Get("n"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 || v > 100 {
			return hubapi.Errorf(hubapi.ErrBadQuery, "n=%q: want a count from 1 to 100", s)
		}
		n = v
	}
	names, err := h.reg.SuggestNames(r.Context(), n)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, hubapi.Names{Suggestions: names})
	return nil
}

// health is GET /v1/health: no token needed; tells a client which hub runs.
// Without a valid token a peer process gets health_per_second calls, so
// that the one call anyone may make is no lever on the hub.
func health(h *Hub, w http.ResponseWriter, r *http.Request, _ hubapi.Identity) error {
	if s := slotOf(r.Context()); !s.allowHealth() {
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if _, err := h.tokens.Authenticate(strings.TrimSpace(tok), peerOf(r.Context())); err != nil {
			return hubapi.Errorf(hubapi.ErrRateLimited, "GET /v1/health without a valid token: process %d is over %d calls a second (health_per_second); send a token or slow down", s.pid, hubapi.LimitOf("health_per_second").Max)
		}
	}
	writeJSON(w, http.StatusOK, hubapi.Health{PID: os.Getpid(), Epoch: h.stream.Epoch(), Head: h.stream.Head(),
		Home: h.cfg.Home.Dir, Versions: hubapi.SupportedVersions, EnrolsByFile: h.tokens.enrolsHere()})
	return nil
}

// whoami is GET /v1/whoami: the identity the hub derives from the token.
func whoami(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	writeJSON(w, http.StatusOK, id)
	return nil
}
