package mcpserver

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
)

// bearer adds a token to every request of the SDK's HTTP client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// "--http … each session authenticated by the persona's runtime
// token as a bearer (401 for a bad, rotated or retired token)".
func TestHTTPSessionsAuthenticateByTheRuntimeToken(t *testing.T) {
	f := newFixture(t)
	p := f.persona(t, "work/core/lead", "Spica")
	other := f.persona(t, "work/core/deputy", "Zaniah")
	dial := func(ctx context.Context, token string) (*hubclient.Client, error) {
		return hubclient.Dial(ctx, f.home.Dir, hubclient.WithToken(token), hubclient.WithRetryBudget(0))
	}
	srv := httptest.NewServer(HTTPHandler(p.Address, dial, Options{Home: f.home.Dir}, nil))
	defer srv.Close()
	token := func(id string) string {
		b, err := os.ReadFile(f.home.GenerationDir(id) + "/" + hubapi.TokenFile)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}
	connectHTTP := func(tok string) (*mcp.ClientSession, error) {
		tr := &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: bearer{tok}}}
		return mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, nil).Connect(context.Background(), tr, nil)
	}

	cs, err := connectHTTP(token(p.ID))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	n := 0
	for _, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n == 0 {
		t.Fatal("no tools over HTTP")
	}

	status := func(tok string) (int, string) {
		req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	for what, tok := range map[string]string{"no token": "", "a bad token": "vt_nonsense", "another persona's": token(other.ID)} {
		if got, _ := status(tok); got != http.StatusUnauthorized {
			t.Errorf("%s: HTTP %d, want 401", what, got)
		}
	}

	ret, err := f.op.RequestRetirement(context.Background(), p.ID, "done")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.op.Decide(context.Background(), ret.Confirmation.ID, hubapi.DecideRequest{Approve: true}); err != nil {
		t.Fatal(err)
	}
	// The bearer transport's answer is 401; its text says the generation
	// was retired (when, why), not that the token is set up wrong
	// (TestRetiredSessionEnds: also once its runtime stopped on its own).
	if got, body := status(token(p.ID)); got != http.StatusUnauthorized || !strings.Contains(body, "was retired at") || !strings.Contains(body, `"done"`) {
		t.Errorf("the retired persona's token: HTTP %d %q, want 401 naming the retirement", got, body)
	}
}

// A token check the hub does not answer (here: a cancelled request) does
// not drop the token's runtime: the next request finds the same one, and
// no second boot claims a new instance fence over the live sessions.
func TestHTTPTokenCheckThatFailsKeepsTheRuntime(t *testing.T) {
	f := newFixture(t)
	p := f.persona(t, "work/core/lead", "Spica")
	dial := func(ctx context.Context, token string) (*hubclient.Client, error) {
		return hubclient.Dial(ctx, f.home.Dir, hubclient.WithToken(token), hubclient.WithRetryBudget(0))
	}
	h := &httpFront{address: p.Address, dial: dial, opts: Options{Home: f.home.Dir}, byToken: map[[32]byte]*Runtime{}}
	b, err := os.ReadFile(f.home.GenerationDir(p.ID) + "/" + hubapi.TokenFile)
	if err != nil {
		t.Fatal(err)
	}
	tok := strings.TrimSpace(string(b))
	first, err := h.verify(context.Background(), tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h.verify(cancelled, tok, nil); err == nil {
		t.Fatal("a token check with a cancelled request passed")
	}
	again, err := h.verify(context.Background(), tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again.Extra["runtime"] != first.Extra["runtime"] {
		t.Fatal("a failed token check dropped the runtime; the next request booted another")
	}
}

// `mcp --http` boots the runtime once at start (the boot proof fails the
// command early): the first request with that token is served by that
// runtime, not by a second boot whose fence would fence the first out.
func TestHTTPServesTheRuntimeBootedAtStart(t *testing.T) {
	f := newFixture(t)
	p := f.persona(t, "work/core/lead", "Spica")
	booted := f.runtime(t, p, Options{})
	dial := func(ctx context.Context, token string) (*hubclient.Client, error) {
		return hubclient.Dial(ctx, f.home.Dir, hubclient.WithToken(token), hubclient.WithRetryBudget(0))
	}
	h := httpFrontFor(p.Address, dial, Options{Home: f.home.Dir}, booted)
	b, err := os.ReadFile(f.tokenFile(p))
	if err != nil {
		t.Fatal(err)
	}
	info, err := h.verify(context.Background(), strings.TrimSpace(string(b)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if info.Extra["runtime"] != booted {
		t.Fatal("the first request booted a second runtime beside the one booted at start")
	}
	if _, err := booted.c.Beat(context.Background()); err != nil {
		t.Fatalf("the runtime booted at start, after the first request: %v", err)
	}
}
