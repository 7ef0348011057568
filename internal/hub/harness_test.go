package hub

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/workspace"
)

// testHub is a real hub on a real socket in a short temporary home.
type testHub struct {
	home registry.Home
	hub  *Hub
	stop func()
	// crash ends the hub as a killed process would, for hubs on etcd (see
	// crashHub).
	crash func()
}

// shortHome makes a home whose socket path fits the 108-byte limit of Unix
// socket addresses (t.TempDir() paths can be longer).
func shortHome(t testing.TB) registry.Home {
	t.Helper()
	dir, err := os.MkdirTemp("", "vh")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return registry.Home{Dir: dir}
}

func startHub(t testing.TB, home registry.Home, cfg Config, to Timeouts) *testHub {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan *Hub, 1)
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, ServeOptions{Home: home, Hub: cfg, Timeouts: to, Ready: func(h *Hub) { ready <- h }})
	}()
	th := &testHub{home: home}
	select {
	case th.hub = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("hub did not start: %v", err)
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("hub did not start in 10 s")
	}
	stopped := false
	th.stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("hub stopped with %v", err)
		}
	}
	th.crash = func() {
		stopped = true
		crashHub(th.hub)
		cancel()
		<-done // its errors are the crash's
	}
	t.Cleanup(th.stop)
	return th
}

// addPersona registers a generation through the API as operator henry
// (its bound human), approves its activation, and returns it active.
func (th *testHub) addPersona(t testing.TB, addr, name string) registry.Persona {
	t.Helper()
	ctx := context.Background()
	op := th.operator(t, "henry")
	reg, err := op.Register(ctx, hubapi.RegisterRequest{Address: addr, Name: name, Human: "human:henry"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := op.Decide(ctx, reg.Confirmation.ID, hubapi.DecideRequest{Approve: true}); err != nil {
		t.Fatal(err)
	}
	p, err := th.hub.Registry().Get(ctx, reg.Persona.ID)
	if err != nil {
		t.Fatal(err)
	}
	if p.State != registry.StateActive {
		t.Fatalf("%s is %s after its activation was approved", addr, p.State)
	}
	return p
}

// retire asks for the persona's retirement and approves it as henry.
func (th *testHub) retire(t testing.TB, ref, reason string) {
	t.Helper()
	ctx := context.Background()
	op := th.operator(t, "henry")
	r, err := op.RequestRetirement(ctx, ref, reason)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := op.Decide(ctx, r.Confirmation.ID, hubapi.DecideRequest{Approve: true}); err != nil {
		t.Fatal(err)
	}
}

// runtime dials as the persona's generation, with its token file.
func (th *testHub) runtime(t testing.TB, p registry.Persona) *hubclient.Client {
	t.Helper()
	c, err := hubclient.Dial(context.Background(), th.home.Dir, hubclient.WithTokenFile(th.home.GenerationDir(p.ID)+"/"+hubapi.TokenFile))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mustNil(t, c.Close()) })
	return c
}

// operator dials as a human principal, enrolling them first if they are
// not (as an existing operator would with `virgo-tui operator add`).
func (th *testHub) operator(t testing.TB, name string) *hubclient.Client {
	t.Helper()
	enrol(t, th.home.Dir, name)
	c, err := hubclient.Dial(context.Background(), th.home.Dir, hubclient.AsOperator(name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mustNil(t, c.Close()) })
	return c
}

// wantCode asserts err is an API error with the code.
func wantCode(t testing.TB, err error, code string) *hubapi.APIError {
	t.Helper()
	var ae *hubapi.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("got %v, want API error %q", err, code)
	}
	if ae.Code != code {
		t.Fatalf("got code %q (%d: %s), want %q", ae.Code, ae.Status, ae.Msg, code)
	}
	return ae
}

// collect reads changes from a subscription until pred holds or the
// timeout passes.
func collect(t testing.TB, ch <-chan []hubapi.Change, timeout time.Duration, pred func([]hubapi.Change) bool) []hubapi.Change {
	t.Helper()
	var got []hubapi.Change
	deadline := time.After(timeout)
	for !pred(got) {
		select {
		case b, ok := <-ch:
			if !ok {
				t.Fatalf("subscription closed after %d changes", len(got))
			}
			got = append(got, b...)
		case <-deadline:
			t.Fatalf("timed out after %d changes: %s", len(got), kinds(got))
		}
	}
	return got
}

func kinds(cs []hubapi.Change) string {
	s := ""
	if len(cs) > 20 {
		s, cs = "... ", cs[len(cs)-20:]
	}
	for _, c := range cs {
		s += string(c.Kind) + ":" + c.ID + " "
	}
	return s
}

// socketHTTP is a plain HTTP client of the hub serving home, for tests
// that read raw answers (the typed client decodes them).
func socketHTTP(home string) *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", hubapi.SocketPath(home))
	}}}
}

// enrol makes human name an operator of home unless they already are.
func enrol(t testing.TB, home, name string) {
	t.Helper()
	if _, err := hubapi.EnrolOperator(home, name, hubapi.NoUID); err != nil && !errors.Is(err, hubapi.ErrAlreadyEnrolled) {
		t.Fatal(err)
	}
}

// writeWorkspace writes a file into the workspace of the persona at
// address, as the hub keeps it.
func (th *testHub) writeWorkspace(t testing.TB, address, rel, content string) {
	t.Helper()
	p := filepath.Join(workspace.HomeDir(th.home.Dir, address), rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
