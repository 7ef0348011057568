package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/tools"
)

// Implementation names this server to MCP clients.
var Implementation = &mcp.Implementation{Name: "virgo-tui", Title: "Virgo persona", Version: "1"}

// Server is the MCP server of a runtime: exactly the stamp's MCP projection
// as its tools, each with its description, input and output schemas from
// the one tool table. Every connected session is the persona's presence.
func (r *Runtime) Server() *mcp.Server {
	s := mcp.NewServer(Implementation, &mcp.ServerOptions{
		Instructions: fmt.Sprintf("You work as the persona %s (%s). Every tool call is decided by the Virgo hub under its capability stamp. ",
			r.who.Principal, r.st.Persona.Name) + r.waitDoc(),
		// Logging: a runtime fenced out says why in a log message before it
		// closes the session (closeSession), and a waiting call without a
		// progress token names its correlation id in one (wait). MCP's
		// logging is deprecated by SEP-2577 and works through its
		// deprecation window.
		//lint:ignore SA1019 the one MCP channel to speak outside a call's answer; see closeSession
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}, Logging: &mcp.LoggingCapabilities{}},
		// The inbox resource (inbox.go): subscribed, it says when work arrives.
		SubscribeHandler: r.subscribe, UnsubscribeHandler: r.unsubscribe,
	})
	s.AddReceivingMiddleware(r.present)
	r.addInbox(s)
	for _, row := range r.tools {
		s.AddTool(&mcp.Tool{Name: row.Name, Description: r.describe(row), InputSchema: row.Schema(),
			OutputSchema: outputSchema(row), Annotations: annotations(row)},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				s := r.sessionOf(req.Session)
				ctx, done := r.living(ctx, s)
				defer done()
				return r.callTool(ctx, s, req, row), nil
			})
	}
	return s
}

// waitDoc tells an agent how a call that needs confirmation waits and
// how to rejoin it: the server's instructions and every confirm tool's
// description carry it, so a client learns it from tools/list alone.
func (r *Runtime) waitDoc() string {
	return fmt.Sprintf("A call that needs confirmation waits up to %s for its authority (a human, or the owning lead), "+
		"sending progress notifications that name its correlation_id and confirmation when the request carries a progressToken "+
		"(a log message once otherwise, when the client set a log level). "+
		"Still pending then, it answers status \"unknown\" with its correlation_id (not an error): "+
		"call the same tool again with the same arguments and that correlation_id to join the same confirmation. "+
		"Joining never raises a second confirmation, and an approved call is carried out once.",
		r.opts.ConfirmWait.Round(time.Second))
}

// describe is a tool's description for tools/list: the table's, and for
// a tool the stamp always confirms, how its wait works (waitDoc).
func (r *Runtime) describe(row tools.Tool) string {
	for _, t := range r.st.Tools {
		if t.Name == row.Name && t.Access == stamp.AccessConfirm {
			return row.Description + " Always confirmed: " + r.waitDoc()
		}
	}
	return row.Description
}

// outputSchema is the tool's output schema: every structured answer a
// call can end with — the tool's own (the tool table's), a Failure, and
// the Answer of a call still waiting for its confirmation.
func outputSchema(row tools.Tool) json.RawMessage {
	return row.OutputSchema(failureAnswer, waitingAnswer)
}

// annotations are the tool's hints (tools.Tool.Hints) as MCP's: every
// one stated, as a missing destructive or open-world hint means true.
func annotations(row tools.Tool) *mcp.ToolAnnotations {
	h := row.Hints()
	return &mcp.ToolAnnotations{ReadOnlyHint: h.ReadOnly, DestructiveHint: &h.Destructive,
		IdempotentHint: h.Idempotent, OpenWorldHint: &h.OpenWorld}
}

// ServeStdio serves one MCP session on t (stdin and stdout for the
// command) until the client leaves, the runtime is fenced out or ctx ends
// (SIGTERM): then the calls in flight are ended, so the session closes at
// once, whatever they waited for.
func (r *Runtime) ServeStdio(ctx context.Context, t mcp.Transport) error {
	ss, err := r.Server().Connect(ctx, t, nil)
	if err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		if s := r.sessionOf(ss); s != nil {
			s.endCalls(context.Cause(ctx))
		}
		err = errors.Join(ss.Close(), <-done)
	}
	if stopped := r.stopped(); stopped != nil {
		return stopped
	}
	if errors.Is(err, context.Canceled) || serverClosing(err) || peerGone(err) {
		return nil
	}
	return err
}

// peerGone reports whether err is a write to a client that had already
// left: a response or notification in flight when the client closed its
// end fails with a closed pipe (io.ErrClosedPipe in memory, EPIPE on a
// stdio pipe). The session's read then ended with EOF, which the SDK does
// not report, so the failed write is what Wait returns; it is the client
// leaving, not a failure of the server.
func peerGone(err error) bool {
	return errors.Is(err, io.ErrClosedPipe) || errors.Is(err, syscall.EPIPE)
}

// ErrNotLoopback: an HTTP address that is not a loopback one, without the
// flag that allows it.
var ErrNotLoopback = errors.New("the MCP HTTP server listens on a loopback address unless --allow-remote is given")

// CheckListen refuses an address that is not loopback unless remote is
// allowed: the server's bearer is a persona's runtime token, not a
// credential to put on a network.
func CheckListen(addr string, remote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %s: %w", addr, err)
	}
	if ip := net.ParseIP(host); remote || host == "localhost" || ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("--http %s: %w", addr, ErrNotLoopback)
}

// HTTPHandler serves the streamable HTTP transport for the persona address.
// Every request carries a bearer token; it must be the persona's runtime
// token as the hub knows it now (a bad, rotated or retired token is 401),
// and each session is bound to the generation that opened it. A session
// acts with the token it presented, through a client dial makes; one that
// presents booted's token is served by booted (see httpFrontFor).
func HTTPHandler(address string, dial func(ctx context.Context, token string) (*hubclient.Client, error), opts Options, booted *Runtime) http.Handler {
	h := httpFrontFor(address, dial, opts, booted)
	mh := mcp.NewStreamableHTTPHandler(func(req *http.Request) *mcp.Server {
		ti := auth.TokenInfoFromContext(req.Context())
		if ti == nil {
			return nil
		}
		r, _ := ti.Extra["runtime"].(*Runtime)
		if r.stopped() != nil {
			return nil // fenced out: 400, and verify says why on the next request
		}
		return r.server()
	}, &mcp.StreamableHTTPOptions{SessionTimeout: 30 * time.Minute})
	return auth.RequireBearerToken(h.verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(mh)
}

// httpFrontFor is the front of address's runtimes over HTTP. booted, when
// not nil, is a runtime already booted (the command's start-up proof): a
// request presenting its token is served by it, and no second boot claims
// a fence over it.
func httpFrontFor(address string, dial func(ctx context.Context, token string) (*hubclient.Client, error), opts Options, booted *Runtime) *httpFront {
	h := &httpFront{address: address, dial: dial, opts: opts, byToken: map[[32]byte]*Runtime{}}
	if booted != nil {
		h.byToken[booted.c.TokenSHA256()] = booted
	}
	return h
}

// httpFront authenticates the HTTP transport's requests and keeps one
// runtime per token.
type httpFront struct {
	address string
	dial    func(ctx context.Context, token string) (*hubclient.Client, error)
	opts    Options

	mu      sync.Mutex
	byToken map[[32]byte]*Runtime
}

// verify asks the hub who the token is, on every request: only the served
// persona's current token passes.
func (h *httpFront) verify(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	key := sha256.Sum256([]byte(token))
	h.mu.Lock()
	r := h.byToken[key]
	h.mu.Unlock()
	if r != nil {
		// A runtime stopped as retired is checked below, so that its token
		// is answered as the invalid token it now is (and forgotten).
		if err := r.stopped(); err != nil && !errors.Is(err, ErrRetiredOut) {
			return nil, err
		}
		who, err := r.c.WhoAmI(ctx)
		if err != nil && !errors.Is(err, hubapi.ErrUnauthenticated) && !errors.Is(err, registry.ErrRetired) {
			// The hub did not answer (a cancelled request, a restart):
			// the token is not refused, and its runtime stays.
			return nil, fmt.Errorf("check the token with the hub: %w", err)
		}
		if err != nil || who != r.who {
			// Rotated or retired: forget it and close it, so the map holds
			// live tokens only.
			h.mu.Lock()
			if h.byToken[key] == r {
				delete(h.byToken, key)
			}
			h.mu.Unlock()
			r.Close()
			r.c.Close()
			if errors.Is(err, registry.ErrRetired) {
				return nil, fmt.Errorf("%w: %v", auth.ErrInvalidToken, err)
			}
			return nil, fmt.Errorf("%w: the hub no longer accepts this token for %s", auth.ErrInvalidToken, h.address)
		}
		return &auth.TokenInfo{UserID: who.PersonaID, Extra: map[string]any{"runtime": r}}, nil
	}
	c, err := h.dial(ctx, token)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", auth.ErrInvalidToken, err)
	}
	r, err = Boot(ctx, c, h.address, h.opts)
	if err != nil {
		c.Close()
		if errors.Is(err, hubapi.ErrUnauthenticated) || errors.Is(err, registry.ErrRetired) || errors.Is(err, ErrNotPersona) || errors.Is(err, ErrWrongPersona) {
			return nil, fmt.Errorf("%w: %v", auth.ErrInvalidToken, err)
		}
		return nil, err
	}
	h.mu.Lock()
	if prev := h.byToken[key]; prev != nil {
		h.mu.Unlock()
		r.Close()
		c.Close()
		r = prev
	} else {
		h.byToken[key] = r
		h.mu.Unlock()
	}
	return &auth.TokenInfo{UserID: r.who.PersonaID, Extra: map[string]any{"runtime": r}}, nil
}

// server is the runtime's MCP server, made once.
func (r *Runtime) server() *mcp.Server {
	r.serverOnce.Do(func() { r.mcp = r.Server() })
	return r.mcp
}
