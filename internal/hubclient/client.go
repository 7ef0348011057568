// Package hubclient is the one client of the hub's API on its Unix socket,
// used by every command, the console's adapter and any other front end. It
// is the one retry owner: every call, dial and stream reconnect goes through
// one policy (a total budget, backoff, one Idempotency-Key per write for all
// its attempts) and fails with a final error that names the socket and what
// was tried. It imports the wire contract (hubapi), never the server.
package hubclient

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// PrincipalEnv names the principal a command acts as without --as: a
// human ("human:<name>", the default operator) or a persona address.
const PrincipalEnv = "VIRGO_PRINCIPAL"

// TokenFileEnv names a persona runtime's token file, for a runtime given
// its token at launch (one running as another Unix user than the home's).
const TokenFileEnv = "VIRGO_TOKEN_FILE"

// Starter starts a hub serving the client's home inside this process (see
// hub.InProcessOn) and returns how to stop it. It fails with an error
// wrapping hubapi.ErrHubRunning when another process's hub holds the home:
// the client then waits for that hub to answer.
type Starter func(ctx context.Context) (stop func() error, err error)

// Client is the one way every subcommand, the console and a persona
// runtime talk to a hub: typed methods for each endpoint over the home's
// socket, authenticated by one token, each call retried by one policy (see
// retry) within the client's budget. It is safe for concurrent use.
type Client struct {
	home   string
	socket string
	token  string
	http   *http.Client
	budget time.Duration

	mu    sync.Mutex
	epoch string // of the last Snapshot or stream answer
	// fence is the instance fence this client presents (0: none); see
	// ClaimFence.
	fence atomic.Uint64

	starter Starter
	startMu sync.Mutex
	stops   []func() error // of the hubs this client started
	closed  bool
}

// DialOption chooses who a client acts as and how it reaches a hub.
type DialOption func(*dialConfig) error

type dialConfig struct {
	token    string
	operator string
	// anonymous: no token at all (Probe), so no operator is looked up.
	anonymous bool
	starter   Starter
	budget    time.Duration
	budgetSet bool
}

// AsOperator acts as human principal name ("human:<name>" or a bare name;
// empty: DefaultOperator), with their enrolled operator token.
func AsOperator(name string) DialOption {
	return func(c *dialConfig) error {
		if strings.TrimSpace(name) == "" {
			h, err := DefaultOperator()
			c.operator = h
			return err
		}
		h, err := registry.NormalizeHuman(name)
		c.operator = h
		return err
	}
}

// WithToken acts as whoever the token identifies (a persona runtime).
func WithToken(tok string) DialOption {
	return func(c *dialConfig) error { c.token = strings.TrimSpace(tok); return nil }
}

// WithTokenFile reads the token from a file, such as a persona
// generation's <GenerationDir>/token, through hubapi.ReadPersonaToken: a
// link, a loose mode, another user's file or directory is refused
// (private.ErrUnsafe), and a file that holds no virgo token is refused
// (hubapi.ErrBadTokenFile), never taken for "no token".
func WithTokenFile(path string) DialOption {
	return func(c *dialConfig) error {
		tok, err := hubapi.ReadPersonaToken(path)
		if err != nil {
			return fmt.Errorf("read token: %w", err)
		}
		c.token = tok
		return nil
	}
}

// WithStarter lets the client start a hub in this process whenever none
// answers (at Dial, or later when the hub it used went away and no other
// took over); Close stops the hubs it started. Without it, a client only
// waits, within its budget, for some other process's hub.
func WithStarter(s Starter) DialOption {
	return func(c *dialConfig) error { c.starter = s; return nil }
}

// WithRetryBudget sets how long each call keeps trying to reach a hub
// (default $VIRGO_HUB_RETRY, else DefaultRetryBudget); 0 tries once.
func WithRetryBudget(d time.Duration) DialOption {
	return func(c *dialConfig) error { c.budget, c.budgetSet = max(d, 0), true; return nil }
}

// DefaultOperator is the human every command and client acts as when
// nothing names one (--as comes first, in the command): $VIRGO_PRINCIPAL,
// else human:$USER, else human:owner (registry.DefaultHumanName) — one
// rule, so no command acts as someone else than another would.
func DefaultOperator() (string, error) {
	return registry.NormalizeHuman(os.Getenv(PrincipalEnv))
}

// Probe looks once, without a token and without starting a hub, for a hub
// serving home, and returns its health (which needs no token). Nothing is
// read from the home's token files, so probing never acts as anyone — nor
// enrols anyone at a first install.
func Probe(ctx context.Context, home string) (hubapi.Health, error) {
	c, err := newClient(home, func(c *dialConfig) error { c.anonymous = true; return nil }, WithRetryBudget(0))
	if err != nil {
		return hubapi.Health{}, err
	}
	defer c.Close()
	return c.Health(ctx)
}

// Dial connects to the hub serving home, acting as the default operator
// unless an option says otherwise, and checks that a hub answers (starting
// one with the client's starter if none does). It fails with ErrNoHub,
// naming the socket and what was tried, when no hub answers within the
// retry budget.
func Dial(ctx context.Context, home string, opts ...DialOption) (*Client, error) {
	c, err := newClient(home, opts...)
	if err != nil {
		return nil, err
	}
	if _, err := c.Health(ctx); err != nil {
		return nil, errors.Join(err, c.Close())
	}
	return c, nil
}

func newClient(home string, opts ...DialOption) (*Client, error) {
	if err := hubapi.CheckSocketPath(home); err != nil {
		return nil, err
	}
	var cfg dialConfig
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if !cfg.budgetSet {
		var err error
		if cfg.budget, err = retryBudgetFromEnv(); err != nil {
			return nil, err
		}
	}
	if cfg.token == "" && !cfg.anonymous {
		name, err := cfg.operator, error(nil)
		if name == "" {
			if name, err = DefaultOperator(); err != nil {
				return nil, err
			}
		}
		if cfg.token, err = hubapi.OperatorToken(home, name); err != nil {
			return nil, err
		}
	}
	sock := hubapi.SocketPath(home)
	tr := &http.Transport{
		DialContext:         func(ctx context.Context, _, _ string) (net.Conn, error) { return dialUnix(ctx, sock) },
		MaxIdleConns:        64,
		MaxIdleConnsPerHost: 64,
		// Below the hub's idle_connection, so that the client lets go of
		// an idle connection before the hub closes it under a request.
		IdleConnTimeout: time.Duration(hubapi.LimitOf("idle_connection").Max) * time.Second * 2 / 3,
		// The hub never compresses its answers: no Accept-Encoding header
		// for it to parse on every request.
		DisableCompression: true,
	}
	return &Client{home: home, socket: sock, token: cfg.token, http: &http.Client{Transport: tr},
		budget: cfg.budget, starter: cfg.starter}, nil
}

// dialUnix connects to the hub's socket, waiting while its accept queue is
// full. A Unix socket's connect(2) blocks in that case, but Go's sockets are
// non-blocking and the kernel answers EAGAIN instead: under a flood of
// connections an operator's dial then failed at once ("resource temporarily
// unavailable") although the hub sheds the flood within moments. So the dial
// does what a blocking connect would: waits, here in short jittered steps,
// until it connects or ctx ends. It is the connect's own wait, not a retry of
// a request: nothing has been sent.
func dialUnix(ctx context.Context, sock string) (net.Conn, error) {
	var d net.Dialer
	for {
		c, err := d.DialContext(ctx, "unix", sock)
		if !errors.Is(err, syscall.EAGAIN) {
			return c, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(time.Duration(2+rand.IntN(8)) * time.Millisecond):
		}
	}
}

// Home is the home this client's hub serves.
func (c *Client) Home() string { return c.home }

// TokenSHA256 is the SHA-256 of the client's token: what a front end that
// keeps something per presented token keys it by, without holding the
// token itself.
func (c *Client) TokenSHA256() [32]byte { return sha256.Sum256([]byte(c.token)) }

// Close releases the client's idle connections and stops the hubs it
// started (each drains, flushes presence and closes the store), returning
// their stop errors. A client is not used after Close.
func (c *Client) Close() error {
	c.startMu.Lock()
	stops := c.stops
	c.stops, c.closed = nil, true
	c.startMu.Unlock()
	c.http.CloseIdleConnections()
	var err error
	for _, stop := range stops {
		err = errors.Join(err, stop())
	}
	return err
}

// do makes one call and decodes its JSON answer into out (if not nil); a
// non-2xx answer becomes an *hubapi.APIError.
func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	b, err := c.call(ctx, method, path, body)
	if err != nil || out == nil {
		return err
	}
	if err := hubapi.Decode(b, out); err != nil {
		return fmt.Errorf("%s %s: unreadable answer: %w", method, path, err)
	}
	return nil
}

// get makes a GET and returns the whole 2xx answer, for a caller with its
// own decoder.
func (c *Client) get(ctx context.Context, path string) ([]byte, error) {
	return c.call(ctx, "GET", path, nil)
}

// call sends one request and reads its whole answer, retried as one unit
// by retry: a write carries one Idempotency-Key on every attempt, so the
// hub answers a repeat of a write it already committed with the original
// result instead of doing it twice.
func (c *Client) call(ctx context.Context, method, path string, body any) ([]byte, error) {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return nil, err
		}
	}
	key := ""
	if method != http.MethodGet {
		key = NewIdempotencyKey()
	}
	var answer []byte
	err := c.retry(ctx, method+" "+path, func(ctx context.Context) error {
		var err error
		answer, err = c.exchange(ctx, method, path, payload, key)
		return err
	})
	return answer, err
}

// NewIdempotencyKey is a fresh key for one write, as the client makes for
// each of its own (a caller that sends a request by other means, such as a
// benchmark's in-process baseline, makes its key here): the time in Unix
// milliseconds as 11 hex digits, then 64 random bits. Keys made later sort
// later, so the hub's records of them append to its store's B+tree instead
// of landing on random leaves (usecase.Key's storeKey); the random bits
// keep the keys of one millisecond, and of every client, apart.
func NewIdempotencyKey() string {
	return fmt.Sprintf("%011x-", time.Now().UnixMilli()) + strconv.FormatUint(rand.Uint64(), 36)
}

// exchange is one attempt of a call: the request on a connection of the
// pool (or a new one) and its whole answer, read into one buffer of the
// announced length. A non-2xx answer becomes an *hubapi.APIError.
func (c *Client) exchange(ctx context.Context, method, path string, payload []byte, key string) ([]byte, error) {
	return c.exchangeAs(ctx, method, path, "application/json", payload, key)
}

// exchangeAs is exchange with a body of another media type (a snapshot
// file).
func (c *Client) exchangeAs(ctx context.Context, method, path, mediaType string, payload []byte, key string) ([]byte, error) {
	var rd io.Reader
	if payload != nil {
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://hub"+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	c.setFenceHeader(req)
	if payload != nil {
		req.Header.Set("Content-Type", mediaType)
	}
	if key != "" {
		req.Header.Set(hubapi.IdempotencyHeader, key)
		// The key makes net/http treat a write as replayable and resend it
		// by itself after a broken kept-alive connection; without a way
		// to rewind the body it does not, and retry stays the one place
		// that decides (and counts) every attempt.
		req.GetBody = nil
	}
	// The transport itself, not c.http.Do: the hub never redirects, and
	// http.Client copies every request's headers to follow a redirect.
	resp, err := c.http.Transport.RoundTrip(req)
	if err != nil {
		// Named as http.Client names it: `Post "http://hub/v1/…": …`.
		return nil, &url.Error{Op: method[:1] + strings.ToLower(method[1:]), URL: req.URL.String(), Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, readAPIError(resp)
	}
	buf := bytes.NewBuffer(make([]byte, 0, max(resp.ContentLength, 0)+bytes.MinRead))
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func readAPIError(resp *http.Response) error {
	ae := &hubapi.APIError{Status: resp.StatusCode}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, hubapi.MaxBody))
	if hubapi.Decode(b, ae) != nil || ae.Msg == "" {
		ae.Code, ae.Msg = "http_"+strconv.Itoa(resp.StatusCode), strings.TrimSpace(string(b))
	}
	return ae
}

// Health asks which hub runs; it needs no valid token.
func (c *Client) Health(ctx context.Context) (hubapi.Health, error) {
	var h hubapi.Health
	err := c.do(ctx, "GET", "/v1/health", nil, &h)
	return h, err
}

// HandOver asks the hub to stop serving so that `serve` takes the home
// over (POST /v1/hub/handover); a hub started by serve refuses with
// hubapi.ErrNoHandOver. It answers with the pid of the hub that agreed.
func (c *Client) HandOver(ctx context.Context) (hubapi.HandOver, error) {
	var h hubapi.HandOver
	err := c.do(ctx, "POST", "/v1/hub/handover", nil, &h)
	return h, err
}

// WhoAmI returns the identity the hub derives from this client's token.
func (c *Client) WhoAmI(ctx context.Context) (hubapi.Identity, error) {
	var id hubapi.Identity
	err := c.do(ctx, "GET", "/v1/whoami", nil, &id)
	return id, err
}

// Snapshot returns the installation's state as of a stream sequence.
func (c *Client) Snapshot(ctx context.Context) (hubapi.Snapshot, error) {
	var s hubapi.Snapshot
	if err := c.do(ctx, "GET", "/v1/snapshot", nil, &s); err != nil {
		return hubapi.Snapshot{}, err
	}
	c.setEpoch(s.Epoch)
	return s, nil
}

// Beat sends a heartbeat as the token's persona.
func (c *Client) Beat(ctx context.Context) (hubapi.BeatAck, error) {
	var a hubapi.BeatAck
	err := c.do(ctx, "POST", "/v1/presence/beat", nil, &a)
	return a, err
}

// SetPresence reports a new activity and/or summary (nil leaves one as it is).
func (c *Client) SetPresence(ctx context.Context, activity, summary *string) (hubapi.BeatAck, error) {
	var a hubapi.BeatAck
	err := c.do(ctx, "POST", "/v1/presence/set", hubapi.PresenceReport{Activity: activity, Summary: summary}, &a)
	return a, err
}

// SetSession reports the resident session's state (its harness's hooks).
func (c *Client) SetSession(ctx context.Context, state hubapi.SessionState) (hubapi.BeatAck, error) {
	var a hubapi.BeatAck
	err := c.do(ctx, "POST", "/v1/presence/set", hubapi.PresenceReport{Session: &state}, &a)
	return a, err
}

// Presence lists every tracked generation's presence.
func (c *Client) Presence(ctx context.Context) ([]hubapi.Presence, error) {
	var ps []hubapi.Presence
	err := c.do(ctx, "GET", "/v1/presence", nil, &ps)
	return ps, err
}

// Personas lists seat holders (pending and active), or every generation with all.
func (c *Client) Personas(ctx context.Context, all bool) ([]hubapi.PersonaView, error) {
	path := "/v1/personas"
	if all {
		path += "?all=true"
	}
	var vs []hubapi.PersonaView
	err := c.do(ctx, "GET", path, nil, &vs)
	return vs, err
}

// PersonaRecords lists the records of seat holders (pending and active), or
// of every generation with all, without their presence: each record is the
// store's bytes, checked (registry.Record), for a caller that prints them
// or reads only a few fields.
func (c *Client) PersonaRecords(ctx context.Context, all bool) ([]registry.Record, error) {
	path := "/v1/personas?presence=false"
	if all {
		path += "&all=true"
	}
	b, err := c.get(ctx, path)
	if err != nil {
		return nil, err
	}
	rs, err := hubapi.DecodeRecords(b)
	if err != nil {
		return nil, fmt.Errorf("GET %s: unreadable answer: %w", path, err)
	}
	return rs, nil
}

// Persona finds one persona by generation id, address or name.
func (c *Client) Persona(ctx context.Context, ref string) (hubapi.PersonaView, error) {
	var p hubapi.PersonaView
	err := c.do(ctx, "GET", "/v1/personas/"+escapeRef(ref), nil, &p)
	return p, err
}

// SeatHistory lists every generation that held the seat at address.
func (c *Client) SeatHistory(ctx context.Context, address string) ([]registry.Persona, error) {
	var ps []registry.Persona
	err := c.do(ctx, "GET", "/v1/seats/"+escapeRef(address), nil, &ps)
	return ps, err
}

// SuggestNames returns n free constellation names.
func (c *Client) SuggestNames(ctx context.Context, n int) ([]string, error) {
	var out hubapi.Names
	err := c.do(ctx, "GET", "/v1/names?n="+strconv.Itoa(n), nil, &out)
	return out.Suggestions, err
}

// escapeRef escapes each segment of an address-like reference.
func escapeRef(ref string) string {
	segs := strings.Split(ref, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

func (c *Client) setEpoch(e string) {
	c.mu.Lock()
	c.epoch = e
	c.mu.Unlock()
}

func (c *Client) getEpoch() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.epoch
}
