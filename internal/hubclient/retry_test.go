package hubclient_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hub"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// shortHome is a home whose socket path fits the 108-byte limit of Unix
// socket addresses (t.TempDir() paths can be longer).
func shortHome(t testing.TB) registry.Home {
	t.Helper()
	dir, err := os.MkdirTemp("", "vc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return registry.Home{Dir: dir}
}

// holdHubLock takes the home's hub lock as another process's hub does
// while it starts (before it listens) or stops (after it stopped
// listening); release lets go.
func holdHubLock(t *testing.T, home registry.Home) (release func()) {
	t.Helper()
	if err := os.MkdirAll(hubapi.RunDir(home.Dir), 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(hubapi.PIDPath(home.Dir), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "%d\n", os.Getpid())
	var once sync.Once
	release = func() { once.Do(func() { f.Truncate(0); f.Close() }) }
	t.Cleanup(release)
	return release
}

// A hub that holds the home's lock without serving yet is waited for: the
// client's starter is refused (hubapi.ErrHubRunning) and the client tries
// again until a hub answers — here its own, once the lock is free.
func TestDialWaitsForAHubThatHoldsTheLock(t *testing.T) {
	home := shortHome(t)
	release := holdHubLock(t, home)
	const held = 300 * time.Millisecond
	go func() { time.Sleep(held); release() }()
	t0 := time.Now()
	c, err := hubclient.Dial(context.Background(), home.Dir, hubclient.AsOperator("henry"), hubclient.WithStarter(hub.InProcessOn(home, "")))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}()
	if waited := time.Since(t0); waited < held {
		t.Fatalf("Dial returned after %v, before the lock was released", waited)
	}
	h, err := c.Health(context.Background())
	if err != nil || h.PID != os.Getpid() {
		t.Fatalf("health %+v, %v; want the in-process hub of %d", h, err, os.Getpid())
	}
}

// "a total budget (about 5 s by default ...) and a clear
// final error that names the socket and what was tried".
func TestNoHubFailsWithinTheBudgetSayingWhatWasTried(t *testing.T) {
	home := shortHome(t)
	holdHubLock(t, home) // a hub that never serves
	const budget = 400 * time.Millisecond
	t0 := time.Now()
	_, err := hubclient.Dial(context.Background(), home.Dir, hubclient.AsOperator("henry"),
		hubclient.WithStarter(hub.InProcessOn(home, "")), hubclient.WithRetryBudget(budget))
	waited := time.Since(t0)
	if !errors.Is(err, hubclient.ErrNoHub) {
		t.Fatalf("Dial: %v, want ErrNoHub", err)
	}
	for _, want := range []string{hubapi.SocketPath(home.Dir), "attempts over", "no socket", "starting a hub here",
		fmt.Sprintf("pid %d", os.Getpid()), "virgo-tui serve", `last: Get "http://hub/v1/health": dial unix`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if waited < budget/2 || waited > budget+time.Second {
		t.Fatalf("gave up after %v, want about %v", waited, budget)
	}
}

// flakyHub answers on home's socket as a hub would, except that it breaks
// the connection of the first POSTs as script says: "close" hangs up
// before reading the request, "cut" reads it whole (as a hub that
// committed and died before its reply) and hangs up without answering. Every
// POST's Idempotency-Key is recorded.
type flakyHub struct {
	ln     net.Listener
	mu     sync.Mutex
	script []string
	keys   []string
}

func startFlakyHub(t *testing.T, home registry.Home, script ...string) *flakyHub {
	t.Helper()
	if err := os.MkdirAll(hubapi.RunDir(home.Dir), 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", hubapi.SocketPath(home.Dir))
	if err != nil {
		t.Fatal(err)
	}
	f := &flakyHub{ln: ln, script: script}
	t.Cleanup(func() { ln.Close() })
	go f.serve()
	return f
}

func (f *flakyHub) serve() {
	for {
		conn, err := f.ln.Accept()
		if err != nil {
			return
		}
		go f.conn(conn)
	}
}

func (f *flakyHub) conn(conn net.Conn) {
	defer conn.Close()
	rd := bufio.NewReader(conn)
	for {
		if _, err := rd.Peek(1); err != nil {
			return
		}
		f.mu.Lock()
		step := ""
		if len(f.script) > 0 {
			step = f.script[0]
		}
		f.mu.Unlock()
		if step == "close" && peekMethod(rd) == "POST" {
			f.next()
			return
		}
		req, err := http.ReadRequest(rd)
		if err != nil {
			return
		}
		io.Copy(io.Discard, req.Body)
		if req.Method == "POST" {
			f.mu.Lock()
			f.keys = append(f.keys, req.Header.Get(hubapi.IdempotencyHeader))
			f.mu.Unlock()
			if step == "cut" {
				f.next()
				return
			}
		}
		body := `{"pid":1,"epoch":"e","head":0,"home":"h","versions":["v1"]}`
		if req.Method == "POST" {
			body = `{"id":"c-1","state":"approved"}`
		}
		fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	}
}

func peekMethod(rd *bufio.Reader) string {
	b, _ := rd.Peek(4)
	return strings.TrimSpace(string(b))
}

func (f *flakyHub) recorded() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.keys...)
}

func (f *flakyHub) next() {
	f.mu.Lock()
	f.script = f.script[1:]
	f.mu.Unlock()
}

// "every write carries an Idempotency-Key so it may be
// retried after any transport error". A decision whose connection breaks —
// before the hub read it, or after (when the hub may have committed it) —
// is sent again with the same key, and the caller sees the answer.
func TestAWriteIsRetriedWithOneKeyAfterAnyTransportError(t *testing.T) {
	home := shortHome(t)
	ctx := context.Background()
	dialed := make(chan error, 1)
	var c *hubclient.Client
	go func() {
		var err error
		c, err = hubclient.Dial(ctx, home.Dir, hubclient.AsOperator("henry"), hubclient.WithRetryBudget(3*time.Second))
		dialed <- err
	}()
	time.Sleep(100 * time.Millisecond) // no socket yet: Dial waits
	f := startFlakyHub(t, home, "close", "cut", "close")
	if err := <-dialed; err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cf, err := c.Decide(ctx, "c-1", hubapi.DecideRequest{Approve: true})
	if err != nil {
		t.Fatalf("Decide across broken connections: %v", err)
	}
	if cf.ID != "c-1" {
		t.Fatalf("answer %+v", cf)
	}
	keys := f.recorded()
	if len(keys) != 2 {
		t.Fatalf("the hub read %d attempts (keys %q), want 2 (the cut one and the answered one)", len(keys), keys)
	}
	if keys[0] == "" || keys[0] != keys[1] {
		t.Fatalf("attempts carried keys %q, want one key for every attempt", keys)
	}
	// the next write is another operation, with another key
	if _, err := c.Decide(ctx, "c-1", hubapi.DecideRequest{Approve: true}); err != nil {
		t.Fatal(err)
	}
	if keys = f.recorded(); keys[2] == keys[0] {
		t.Fatalf("a second write reused the first one's key %q", keys[0])
	}
}
