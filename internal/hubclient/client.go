package hubclient

import (
	"bytes"
	"context"
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
	"syscall"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// ErrNoHub: no hub serves this home (no socket, or nobody listening on it).
var ErrNoHub = errors.New("no hub is running for this home; start one with `virgo-tui serve`")

// PrincipalEnv names the human principal a client acts as ("human:<name>").
const PrincipalEnv = "VIRGO_PRINCIPAL"

// Client is the one way every subcommand, the console and a persona
// runtime talk to a hub: typed methods for each endpoint over the home's
// socket, authenticated by one token.
type Client struct {
	home  string
	token string
	http  *http.Client

	mu    sync.Mutex
	epoch string // of the last Snapshot or stream answer
}

// DialOption chooses who a client acts as.
type DialOption func(*dialConfig) error

type dialConfig struct {
	token    string
	operator string
}

// AsOperator acts as human principal name ("human:<name>" or a bare name),
// with its operator token (created 0600 on first use).
func AsOperator(name string) DialOption {
	return func(c *dialConfig) error {
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
// generation's <GenerationDir>/token.
func WithTokenFile(path string) DialOption {
	return func(c *dialConfig) error {
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("read token: %w", err)
		}
		c.token = strings.TrimSpace(string(b))
		return nil
	}
}

// DefaultOperator is the human principal a client acts as without an
// option: $VIRGO_PRINCIPAL, else human:$USER, else human:owner.
func DefaultOperator() (string, error) {
	return registry.NormalizeHuman(os.Getenv(PrincipalEnv))
}

// Dial connects to the hub serving home, acting as the default operator
// unless an option says otherwise. It fails with ErrNoHub when none runs.
func Dial(ctx context.Context, home string, opts ...DialOption) (*Client, error) {
	c, err := newClient(home, opts...)
	if err != nil {
		return nil, err
	}
	if _, err := c.Health(ctx); err != nil {
		c.Close()
		if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			// A hub that was stopping (another command's in-process hub
			// ending) dropped the connection: there is no hub to use.
			err = fmt.Errorf("%w (the hub was stopping: %v)", ErrNoHub, err)
		}
		return nil, err
	}
	return c, nil
}

func newClient(home string, opts ...DialOption) (*Client, error) {
	var cfg dialConfig
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if cfg.token == "" {
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
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		},
		MaxIdleConns:        64,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     time.Minute,
	}
	return &Client{home: home, token: cfg.token, http: &http.Client{Transport: tr}}, nil
}

// Home is the home this client's hub serves.
func (c *Client) Home() string { return c.home }

// Close releases the client's idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// do sends one request and decodes a JSON answer into out (if not nil);
// a non-2xx answer becomes an *APIError.
func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	resp, err := c.send(ctx, method, path, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("%s %s: unreadable answer: %w", method, path, err)
	}
	return nil
}

// get sends a GET and returns the whole 2xx answer, read into one buffer
// of the announced length, for a caller with its own decoder.
func (c *Client) get(ctx context.Context, path string) ([]byte, error) {
	resp, err := c.send(ctx, "GET", path, nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	buf := bytes.NewBuffer(make([]byte, 0, max(resp.ContentLength, 0)+bytes.MinRead))
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return nil, fmt.Errorf("GET %s: %w", path, err)
	}
	return buf.Bytes(), nil
}

// send sends one request; a non-2xx answer becomes an *APIError and the
// caller closes a 2xx answer's body.
func (c *Client) send(ctx context.Context, method, path string, body any) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://hub"+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if method != http.MethodGet {
		// Marks the request replayable for net/http, which then resends it
		// on a fresh connection when a stopping hub closed the idle one it
		// was written to — the hub never read it. The fresh dial then finds
		// no hub (ErrNoHub), and the command starts over on a new one.
		req.Header.Set("Idempotency-Key", strconv.FormatUint(rand.Uint64(), 36))
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, dialError(err)
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		return nil, readAPIError(resp)
	}
	return resp, nil
}

func readAPIError(resp *http.Response) error {
	ae := &hubapi.APIError{Status: resp.StatusCode}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, hubapi.MaxBody))
	if json.Unmarshal(b, ae) != nil || ae.Msg == "" {
		ae.Code, ae.Msg = "http_"+strconv.Itoa(resp.StatusCode), strings.TrimSpace(string(b))
	}
	return ae
}

// dialError turns "nobody listens" into ErrNoHub.
func dialError(err error) error {
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT) {
		return fmt.Errorf("%w (%v)", ErrNoHub, err)
	}
	return err
}

// Health asks which hub runs; it needs no valid token.
func (c *Client) Health(ctx context.Context) (hubapi.Health, error) {
	var h hubapi.Health
	err := c.do(ctx, "GET", "/v1/health", nil, &h)
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
	b, err := c.get(ctx, path)
	if err != nil {
		return nil, err
	}
	vs, err := hubapi.DecodeViews(b)
	if err != nil {
		return nil, fmt.Errorf("GET %s: unreadable answer: %w", path, err)
	}
	return vs, nil
}

// Persona finds one persona by generation id, address or name.
func (c *Client) Persona(ctx context.Context, ref string) (hubapi.PersonaView, error) {
	var p hubapi.PersonaView
	path := "/v1/personas/" + escapeRef(ref)
	b, err := c.get(ctx, path)
	if err != nil {
		return p, err
	}
	if err := p.UnmarshalJSON(b); err != nil {
		return p, fmt.Errorf("GET %s: unreadable answer: %w", path, err)
	}
	return p, nil
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
