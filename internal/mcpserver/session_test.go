package mcpserver

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// presenceOf polls the hub's presence of persona id until ok holds.
func (f *fixture) presenceOf(t *testing.T, id string, what string, ok func(hubapi.Presence) bool) hubapi.Presence {
	t.Helper()
	var last hubapi.Presence
	for range 200 {
		ps, err := f.op.Presence(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if p.ID == id {
				last = p
				if ok(p) {
					return p
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("presence never showed %s; last %+v", what, last)
	return last
}

// "while a client is connected the persona is present: the
// server ... beats, reports activity (the current tool call) and goes
// offline when the client leaves".
func TestSessionIsThePersonasPresence(t *testing.T) {
	f := newFixture(t)
	p := f.persona(t, "work/core/lead", "Spica")
	r := f.runtime(t, p, Options{Beat: 50 * time.Millisecond, ConfirmWait: 3 * time.Second})
	cs := connect(t, r, nil)
	before := f.presenceOf(t, p.ID, "beats", func(pr hubapi.Presence) bool { return pr.Beats > 0 })

	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, _ := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: stamp.PublishTool,
			Arguments: map[string]any{"destination": "https://example.org/x"}})
		done <- res
	}()
	// The activity says which confirmation the persona waits on.
	f.presenceOf(t, p.ID, "the waiting call as activity", func(pr hubapi.Presence) bool {
		return strings.HasPrefix(pr.Activity, stamp.PublishTool+": waiting for human:henry to decide c-")
	})
	<-f.approveWhenAsked(t, p.ID)
	if res := <-done; res == nil || res.IsError {
		t.Fatalf("publish: %+v", res)
	}
	f.presenceOf(t, p.ID, "no activity after the call", func(pr hubapi.Presence) bool { return pr.Activity == "" })

	cs.Close()
	left := f.presenceOf(t, p.ID, "beats", func(pr hubapi.Presence) bool { return pr.Beats > before.Beats })
	time.Sleep(300 * time.Millisecond) // six beat intervals
	after := f.presenceOf(t, p.ID, "the count", func(hubapi.Presence) bool { return true })
	if after.Beats > left.Beats+1 {
		t.Fatalf("the persona still beats after its client left: %d beats, then %d", left.Beats, after.Beats)
	}
}

// "a fenced-out session ends with a clear error": a second
// runtime instance of the same generation claims the fence; the first
// one's session ends and its calls say why.
func TestFencedOutSessionEnds(t *testing.T) {
	f := newFixture(t)
	p := f.persona(t, "work/core/lead", "Spica")
	first := f.runtime(t, p, Options{Beat: 30 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	served := make(chan error, 1)
	go func() { served <- first.ServeStdio(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "old", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if res := callTool(t, cs, "workspace_stat", map[string]any{"path": "QUEUE.md"}); !res.IsError || !strings.Contains(text(res), "no such file") {
		t.Fatalf("stat before: %s", text(res))
	}

	second := f.runtime(t, p, Options{Beat: 30 * time.Millisecond})
	cs2 := connect(t, second, nil)
	select {
	case err := <-served:
		if !errors.Is(err, ErrFencedOut) || !strings.Contains(err.Error(), "work/core/lead") {
			t.Fatalf("the old session ended with %v; want ErrFencedOut naming the persona", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the fenced-out session still runs after 5 s")
	}
	if res, err := first.callTool(ctx, nil, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "workspace_stat"}}, first.tools[0]), error(nil); err != nil || !res.IsError || !strings.Contains(text(res), "fenced out") {
		t.Fatalf("a call on the fenced-out runtime: %s", text(res))
	}
	if res := callTool(t, cs2, "workspace_stat", map[string]any{"path": "QUEUE.md"}); !strings.Contains(text(res), "no such file") {
		t.Fatalf("the new instance: %s", text(res))
	}
}

// A generation retired while its runtime serves: the session ends with
// ErrRetiredOut naming when and why (its beat stream tells it), a later
// call says the same, and the HTTP front answers the runtime's token as
// an invalid token with that sentence (401), not as a failure of its own.
func TestRetiredSessionEnds(t *testing.T) {
	f := newFixture(t)
	p := f.persona(t, "work/core/lead", "Spica")
	r := f.runtime(t, p, Options{Beat: 30 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	served := make(chan error, 1)
	go func() { served <- r.ServeStdio(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "retiring", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ret, err := f.op.RequestRetirement(ctx, p.ID, "project closed")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.op.Decide(ctx, ret.Confirmation.ID, hubapi.DecideRequest{Approve: true}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-served:
		if !errors.Is(err, ErrRetiredOut) || !strings.Contains(err.Error(), "was retired at") || !strings.Contains(err.Error(), "project closed") {
			t.Fatalf("the retired session ended with %v; want ErrRetiredOut saying when and why", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the retired generation's session still runs after 5 s")
	}
	if res := r.callTool(ctx, nil, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "workspace_stat"}}, r.tools[0]); !res.IsError || !strings.Contains(text(res), "was retired at") {
		t.Fatalf("a call on the retired runtime: %s", text(res))
	}
	dial := func(ctx context.Context, token string) (*hubclient.Client, error) {
		return hubclient.Dial(ctx, f.home.Dir, hubclient.WithToken(token), hubclient.WithRetryBudget(0))
	}
	b, err := os.ReadFile(f.tokenFile(p))
	if err != nil {
		t.Fatal(err)
	}
	h := httpFrontFor(p.Address, dial, Options{Home: f.home.Dir}, r)
	if _, err := h.verify(ctx, strings.TrimSpace(string(b)), nil); !errors.Is(err, auth.ErrInvalidToken) || !strings.Contains(err.Error(), "was retired at") {
		t.Fatalf("the HTTP front with the retired runtime's token: %v; want an invalid token naming the retirement", err)
	}
}

// The activity a persona sets itself stays until it sets another: the
// call that set it, and the calls after it, show their own names only
// while they run.
func TestSetActivityStaysUntilReplaced(t *testing.T) {
	f := newFixture(t)
	p := f.persona(t, "work/core/lead", "Spica")
	cs := connect(t, f.runtime(t, p, Options{Beat: 50 * time.Millisecond}), nil)
	const doing = "reviewing the deputy's findings"
	if res := callTool(t, cs, "set_activity", map[string]any{"activity": doing}); res.IsError {
		t.Fatalf("set_activity: %s", text(res))
	}
	if res := callTool(t, cs, "workspace_list", nil); res.IsError {
		t.Fatalf("workspace_list: %s", text(res))
	}
	// Beats after both calls ended: their reports went first on the stream.
	now := f.presenceOf(t, p.ID, "beats", func(hubapi.Presence) bool { return true })
	later := f.presenceOf(t, p.ID, "three more beats", func(pr hubapi.Presence) bool { return pr.Beats >= now.Beats+3 })
	if later.Activity != doing {
		t.Fatalf("activity %q after the calls ended; want %q, set by the persona, until it sets another", later.Activity, doing)
	}
}

// A client that leaves cleanly takes the persona offline within seconds,
// not after the hub's offline interval (two minutes by default); a new
// session brings it back.
func TestACleanDisconnectIsOfflineAtOnce(t *testing.T) {
	f := newFixture(t)
	p := f.persona(t, "work/core/lead", "Spica")
	r := f.runtime(t, p, Options{Beat: 50 * time.Millisecond})
	cs := connect(t, r, nil)
	f.presenceOf(t, p.ID, "active", func(pr hubapi.Presence) bool { return pr.State == hubapi.StateActive })
	left := time.Now()
	cs.Close()
	f.presenceOf(t, p.ID, "offline", func(pr hubapi.Presence) bool { return pr.State == hubapi.StateOffline })
	if took := time.Since(left); took > 3*time.Second {
		t.Fatalf("offline %s after a clean disconnect; want within 3 s", took)
	}
	connect(t, r, nil)
	f.presenceOf(t, p.ID, "active again", func(pr hubapi.Presence) bool { return pr.State == hubapi.StateActive })
}

// A client that leaves while the server writes to it (a response, an
// inbox notification) has left: the session ends without an error, as
// when it leaves between two messages. The client here is the raw pipe,
// so the test knows the server's write is in flight when it leaves: it
// reads one byte of the tools/list answer and closes.
func TestAClientLeavingMidAnswerEndsTheSessionCleanly(t *testing.T) {
	f := newFixture(t)
	p := f.persona(t, "work/core/lead", "Spica")
	r := f.runtime(t, p, Options{})
	client, server := net.Pipe()
	served := make(chan error, 1)
	go func() { served <- r.ServeStdio(context.Background(), &mcp.IOTransport{Reader: server, Writer: server}) }()
	in := bufio.NewReader(client)
	send := func(msg string) {
		t.Helper()
		if _, err := io.WriteString(client, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if _, err := in.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if _, err := in.ReadByte(); err != nil {
		t.Fatal(err)
	}
	client.Close()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("the session of a client that left mid-answer ended with %v; want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the session still runs 10 s after its client left")
	}
}

// An agent calling flat out does not report every call as an activity:
// the hub hears at most one activity report a session per activityEvery
// (the latest one always), not two a call. The hub counts every message
// of a beat stream (Presence.Beats), so the count is of reports.
func TestActivityReportsAreBoundedWhileCallsRunFlatOut(t *testing.T) {
	f := newFixture(t)
	p := f.persona(t, "work/core/lead", "Spica")
	r := f.runtime(t, p, Options{Beat: time.Hour})
	if err := os.WriteFile(filepath.Join(r.Workspace().Dir(), "QUEUE.md"), []byte("- ship it\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, r, nil)
	before := f.presenceOf(t, p.ID, "active", func(pr hubapi.Presence) bool { return pr.State == hubapi.StateActive })

	const calls = 60
	start := time.Now()
	for range calls {
		if res := callTool(t, cs, "workspace_read", map[string]any{"path": "QUEUE.md"}); res.IsError {
			t.Fatalf("workspace_read: %s", text(res))
		}
	}
	elapsed := time.Since(start)
	f.presenceOf(t, p.ID, "a report after the calls", func(pr hubapi.Presence) bool { return pr.Beats > before.Beats })
	time.Sleep(2 * activityEvery) // the last report, if it was held back
	after := f.presenceOf(t, p.ID, "idle after the calls", func(pr hubapi.Presence) bool { return pr.Activity == "" })
	if n, limit := after.Beats-before.Beats, 3+uint64(elapsed/activityEvery); n > limit {
		t.Fatalf("%d calls in %v: the hub heard %d activity reports, more than %d", calls, elapsed.Round(time.Millisecond), n, limit)
	}
}
