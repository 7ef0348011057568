package hub

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
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
	return mux
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
	if err != nil {
		return hubapi.Identity{}, err
	}
	if id.Kind == hubapi.PrincipalPersona {
		// Belt and braces: a generation retired by any path is refused
		// even before its revocation reached the token book.
		if p, ok := h.presence.Get(id.PersonaID); ok && p.State == hubapi.StateRetired {
			return hubapi.Identity{}, fmt.Errorf("%s: %w", id.Principal, hubapi.ErrRevoked)
		}
	}
	switch {
	case acc == operator && !id.IsHuman():
		return hubapi.Identity{}, fmt.Errorf("%w: %s %s needs an operator token; %s is a persona", hubapi.ErrForbidden, r.Method, r.URL.Path, id.Principal)
	case acc == persona && id.IsHuman():
		return hubapi.Identity{}, fmt.Errorf("%w: %s %s needs a persona generation's token; %s is an operator", hubapi.ErrForbidden, r.Method, r.URL.Path, id.Principal)
	}
	return id, nil
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

// decodeBody reads a JSON object of at most MaxBody bytes into v. Unknown
// fields are refused, so a typo is not silently ignored; identity fields
// are the exception (see IdentityClaims). An empty body decodes as {} when
// optional is set.
func decodeBody(w http.ResponseWriter, r *http.Request, v any, optional bool) error {
	if optional && r.ContentLength == 0 {
		return nil // a bare heartbeat: nothing to parse
	}
	r.Body = http.MaxBytesReader(w, r.Body, hubapi.MaxBody)
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if errors.Is(err, io.EOF) && optional {
		return nil
	}
	if err == nil {
		if _, terr := dec.Token(); !errors.Is(terr, io.EOF) {
			err = errors.New("trailing data after the JSON object")
		}
	}
	if err == nil {
		return nil
	}
	var tooBig *http.MaxBytesError
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &tooBig):
		return hubapi.Errorf(hubapi.ErrTooLarge, "request body is over the %d-byte limit", hubapi.MaxBody)
	case errors.Is(err, io.EOF):
		return hubapi.Errorf(hubapi.ErrMalformedJSON, "request body is empty; send a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return hubapi.Errorf(hubapi.ErrMalformedJSON, "malformed JSON: the body ends in the middle of a value")
	case errors.As(err, &syn):
		return hubapi.Errorf(hubapi.ErrMalformedJSON, "malformed JSON at byte %d: %v", syn.Offset, syn)
	case errors.As(err, &typ):
		return hubapi.Errorf(hubapi.ErrMalformedJSON, "field %q: expected %s, got JSON %s", typ.Field, typ.Type, typ.Value)
	default:
		return hubapi.Errorf(hubapi.ErrMalformedJSON, "malformed request: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
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
