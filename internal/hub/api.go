package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
)

// who may call an endpoint.
type access uint8

const (
	anyone   access = iota // no token needed (health, versions)
	operator               // a human principal's token
	persona                // a persona generation's token
	either                 // an operator or a persona
)

// route is one endpoint: data, so that the mux, the JSON 405 answers and
// docs/api.md are checked against one table.
type route struct {
	method  string
	pattern string // a net/http pattern without the method
	access  access
	handle  func(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error
}

// Handler returns the hub's HTTP API.
func (h *Hub) Handler() http.Handler {
	mux := http.NewServeMux()
	byPattern := map[string]map[string]route{}
	var patterns []string
	for _, rt := range routes() {
		if byPattern[rt.pattern] == nil {
			byPattern[rt.pattern] = map[string]route{}
			patterns = append(patterns, rt.pattern)
		}
		byPattern[rt.pattern][rt.method] = rt
	}
	for _, p := range patterns {
		methods := byPattern[p]
		mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) { h.dispatch(w, r, methods) })
	}
	mux.HandleFunc("/", h.notFound)
	return cleanPaths(mux)
}

// cleanPaths answers a path with ".", ".." or "//" elements with a JSON
// error instead of letting the mux redirect it (an HTML 307 that a client
// might follow somewhere else than it meant).
func cleanPaths(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; p == "" || p[0] != '/' || path.Clean(p) != p && path.Clean(p)+"/" != p {
			writeError(w, hubapi.Errorf(hubapi.ErrUncleanPath, "%q is not a clean path: no \".\", \"..\" or empty elements (see docs/api.md)", p))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// dispatch checks the method and the caller's token, then runs the endpoint.
func (h *Hub) dispatch(w http.ResponseWriter, r *http.Request, methods map[string]route) {
	rt, ok := methods[r.Method]
	if !ok {
		allowed := make([]string, 0, len(methods))
		for m := range methods {
			allowed = append(allowed, m)
		}
		sort.Strings(allowed)
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		writeError(w, hubapi.Errorf(hubapi.ErrMethodNotAllowed, "%s %s is not an endpoint; use %s", r.Method, r.URL.Path, strings.Join(allowed, " or ")))
		return
	}
	id, err := h.authorize(r, rt.access)
	if err != nil {
		writeError(w, err)
		return
	}
	// A human acting through the SSH console: each decision of the
	// request records the transport and the key (confirm.ViaOf).
	r = r.WithContext(confirm.WithVia(r.Context(), id.Via))
	if err := rt.handle(h, w, r, id); err != nil {
		writeError(w, err)
	}
}

// authorize derives the caller's identity from its bearer token, never
// from the request body, and checks it against the endpoint's access.
func (h *Hub) authorize(r *http.Request, acc access) (hubapi.Identity, error) {
	if acc == anyone {
		return hubapi.Identity{}, nil
	}
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return hubapi.Identity{}, hubapi.ErrUnauthenticated
	}
	id, err := h.tokens.Authenticate(strings.TrimSpace(tok), peerOf(r.Context()))
	if rt := (*retiredToken)(nil); errors.As(err, &rt) {
		return hubapi.Identity{}, h.retiredError(r.Context(), rt.id)
	}
	if err != nil {
		return hubapi.Identity{}, err
	}
	if id.Kind == hubapi.PrincipalPersona {
		// Belt and braces: a generation retired by any path is refused
		// even before its retirement reached the token book.
		if p, ok := h.presence.Get(id.PersonaID); ok && p.State == hubapi.StateRetired {
			return hubapi.Identity{}, h.retiredError(r.Context(), id)
		}
		if err := h.checkStamp(r.Context(), id.PersonaID); err != nil {
			return hubapi.Identity{}, fmt.Errorf("%s: %w", id.Principal, err)
		}
	}
	switch {
	case acc == operator && !id.IsHuman():
		return hubapi.Identity{}, fmt.Errorf("%w: %s %s needs an operator token; %s is a persona", hubapi.ErrForbidden, r.Method, r.URL.Path, id.Principal)
	case acc == persona && id.IsHuman():
		return hubapi.Identity{}, fmt.Errorf("%w: %s %s needs a persona generation's token; %s is an operator", hubapi.ErrForbidden, r.Method, r.URL.Path, id.Principal)
	}
	if !id.IsHuman() {
		if err := h.checkFence(r, id); err != nil {
			return hubapi.Identity{}, err
		}
	} else {
		slotOf(r.Context()).markOperator()
	}
	return id, nil
}

// retiredError is the refusal of a call with the token of id's retired
// generation: registry.ErrRetired (wire code `retired`), saying when and
// why the generation was retired as its record says, so that its runtime
// (or whoever runs it) reads that the generation's work is over, not that
// its token is set up wrong. The record is read only for a retired
// token's call; a record that cannot be read leaves the when unsaid.
func (h *Hub) retiredError(ctx context.Context, id hubapi.Identity) error {
	who := id.Principal
	var when string
	if p, err := h.reg.Get(ctx, id.PersonaID); err == nil {
		who = fmt.Sprintf("%s (%s, generation %d)", p.Address, p.Name, p.Generation)
		if p.RetiredAt != nil {
			when = " at " + p.RetiredAt.UTC().Format(time.RFC3339)
		}
		if p.RetireReason != "" {
			when += fmt.Sprintf(" (reason: %q)", p.RetireReason)
		}
	}
	return fmt.Errorf("%s: %w: this token's generation was retired%s and acts no more; the seat may have a new holder, "+
		"whose runtime acts with its own token (an operator sees who with `persona show %s`)", who, registry.ErrRetired, when, id.Principal)
}

// checkFence refuses a persona's call from a runtime instance that does
// not present its generation's latest instance fence (switchboard.Book.Check):
// one fenced out by a newer instance, or one presenting none once an
// instance claimed one. It is checked here, once for every route, so that
// no read, write or stream of a stale duplicate slips past a handler that
// forgot it; an open stream is checked again with its token
// (untilRevoked). Only unfencedRoute's routes come before an instance
// holds a fence. A write joins the fence's condition in its transaction
// as well (usecase), so a claim committed meanwhile refuses it too.
func (h *Hub) checkFence(r *http.Request, id hubapi.Identity) error {
	if unfencedRoute(r.Method, r.Pattern) {
		return nil
	}
	f, err := hubapi.ParseFence(r.Header.Get(hubapi.FenceHeader))
	if err != nil {
		return err
	}
	if err := h.cases.CheckFence(r.Context(), id.PersonaID, f); err != nil {
		return fmt.Errorf("%s: %w", id.Principal, err)
	}
	return nil
}

// notFound answers every path outside the route table: an unknown version
// names the supported ones; an unknown path of v1 says so.
func (h *Hub) notFound(w http.ResponseWriter, r *http.Request) {
	version, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if version != hubapi.APIVersion {
		ae := hubapi.Errorf(hubapi.ErrUnsupportedVersion, "%s: unknown API version %q; this hub serves /%s/ (see docs/api.md)", r.URL.Path, version, hubapi.APIVersion)
		ae.Versions = hubapi.SupportedVersions
		writeError(w, ae)
		return
	}
	writeError(w, hubapi.Errorf(hubapi.ErrNoEndpoint, "%s %s is not an endpoint of the hub (see docs/api.md)", r.Method, r.URL.Path))
}

// decodeBody reads one JSON object of at most MaxBody bytes into v, and
// checks its text fields against the limits table. Everything a persona
// could use to slip something past the decoder is refused with a named
// error: a Content-Length over the limit (at once, before reading), a body
// not declared application/json, anything but one object (null included),
// and what hubapi.Decode refuses (invalid UTF-8, never silently replaced;
// a key given twice; an unknown field; trailing data). An empty body
// decodes as {} when optional is set.
func decodeBody(w http.ResponseWriter, r *http.Request, v any, optional bool) error {
	if r.ContentLength > hubapi.MaxBody {
		return hubapi.Errorf(hubapi.ErrTooLarge, "request body of %d bytes is over the %d-byte limit; nothing was read", r.ContentLength, hubapi.MaxBody)
	}
	if optional && r.ContentLength == 0 {
		return nil // a bare heartbeat: nothing to parse
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, hubapi.MaxBody))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return hubapi.Errorf(hubapi.ErrTooLarge, "request body is over the %d-byte limit", hubapi.MaxBody)
	} else if err != nil {
		return hubapi.Errorf(hubapi.ErrMalformedJSON, "request body could not be read: %v", err)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		if optional {
			return nil
		}
		return hubapi.Errorf(hubapi.ErrMalformedJSON, "request body is empty; send a JSON object")
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		return hubapi.Errorf(hubapi.ErrUnsupportedMediaType, "Content-Type %q: send the body as application/json", r.Header.Get("Content-Type"))
	}
	if k := hubapi.BodyKind(body); k != "" && k != "an object" {
		return hubapi.Errorf(hubapi.ErrMalformedJSON, "request body is JSON %s; send a JSON object", k)
	}
	if err := hubapi.Decode(body, v); err != nil {
		return err
	}
	return hubapi.CheckFields(v)
}

// idempotencyHeader carries the client's key of a mutating request.
const idempotencyHeader = "Idempotency-Key"

// idempotencyKey names a mutating request for its use case: the client's
// Idempotency-Key (none: no replay), the caller as authenticated, and what
// was asked (the route and the decoded body), so that the same key sent by
// another caller or with another request never replays this one's answer.
func idempotencyKey(r *http.Request, id hubapi.Identity, req any) (usecase.Key, error) {
	key := r.Header.Get(idempotencyHeader)
	if key == "" {
		return usecase.Key{}, nil
	}
	body, err := json.Marshal(req)
	if err != nil {
		return usecase.Key{}, err
	}
	caller := id.Principal
	if !id.IsHuman() {
		caller = "persona:" + id.PersonaID
	}
	return usecase.NewKey(caller, key, []byte(r.Method), []byte(r.URL.Path), body)
}
