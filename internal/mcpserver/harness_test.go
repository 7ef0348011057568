package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hub"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// fixture is a real hub on a real socket in a short temporary home, with
// henry as its operator and the bound human of every persona.
type fixture struct {
	home registry.Home
	op   *hubclient.Client
}

func newFixture(t testing.TB) *fixture { return newFixtureWith(t, hub.Config{}) }

// newFixtureWith is newFixture with the hub configured by cfg.
func newFixtureWith(t testing.TB, cfg hub.Config) *fixture {
	t.Helper()
	dir, err := os.MkdirTemp("", "vm") // a socket path must fit 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	home := registry.Home{Dir: dir}
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan struct{}), make(chan error, 1)
	go func() {
		done <- hub.Serve(ctx, hub.ServeOptions{Home: home, Hub: cfg, Ready: func(*hub.Hub) { close(ready) }})
	}()
	select {
	case <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("hub did not start: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("hub stopped with %v", err)
		}
	})
	if _, err := hubapi.EnrolOperator(dir, "henry", hubapi.NoUID); err != nil && !errors.Is(err, hubapi.ErrAlreadyEnrolled) {
		t.Fatal(err)
	}
	op, err := hubclient.Dial(ctx, dir, hubclient.AsOperator("henry"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { op.Close() })
	return &fixture{home: home, op: op}
}

// persona registers addr as name, approves its activation as henry, and
// returns it active.
func (f *fixture) persona(t testing.TB, addr, name string) registry.Persona {
	t.Helper()
	ctx := context.Background()
	reg, err := f.op.Register(ctx, hubapi.RegisterRequest{Address: addr, Name: name, Human: "human:henry"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.op.Decide(ctx, reg.Confirmation.ID, hubapi.DecideRequest{Approve: true}); err != nil {
		t.Fatal(err)
	}
	v, err := f.op.Persona(ctx, reg.Persona.ID)
	if err != nil {
		t.Fatal(err)
	}
	return v.Persona
}

// tokenFile is the persona generation's runtime token file.
func (f *fixture) tokenFile(p registry.Persona) string {
	return filepath.Join(f.home.GenerationDir(p.ID), hubapi.TokenFile)
}

// runtime boots the MCP runtime of p with its own token.
func (f *fixture) runtime(t testing.TB, p registry.Persona, opts Options) *Runtime {
	t.Helper()
	c, err := hubclient.Dial(context.Background(), f.home.Dir, hubclient.WithTokenFile(f.tokenFile(p)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if opts.Home == "" {
		opts.Home = f.home.Dir
	}
	r, err := Boot(context.Background(), c, p.Address, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// connect serves r to an in-process SDK client and returns its session.
func connect(t testing.TB, r *Runtime, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ct, st := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- r.ServeStdio(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, opts).Connect(ctx, ct, nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server: %v", err)
		}
	})
	return cs
}

// call calls a tool and returns its result, failing on a protocol error.
func callTool(t testing.TB, cs *mcp.ClientSession, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

// structured decodes a result's structured content.
func structured[T any](t testing.TB, res *mcp.CallToolResult) T {
	t.Helper()
	var out T
	b, err := json.Marshal(res.StructuredContent)
	if err == nil {
		err = json.Unmarshal(b, &out)
	}
	if err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
	return out
}

func text(res *mcp.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

// approveWhenAsked approves, as henry, the first pending confirmation of
// persona id as soon as it appears, and returns its id.
func (f *fixture) approveWhenAsked(t testing.TB, personaID string) <-chan string {
	t.Helper()
	out := make(chan string, 1)
	go func() {
		defer close(out)
		ctx := context.Background()
		for range 200 {
			cs, err := f.op.Confirmations(ctx, false)
			if err != nil {
				t.Error(err)
				return
			}
			for _, c := range cs {
				if c.PersonaID == personaID && c.State == confirm.StatePending && c.Kind == confirm.KindOperation {
					if _, err := f.op.Decide(ctx, c.ID, hubapi.DecideRequest{Approve: true}); err != nil {
						t.Error(err)
					}
					out <- c.ID
					return
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Error("no confirmation appeared in 4 s")
	}()
	return out
}
