package hub

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/private"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
	"github.com/virgo-hub/virgo-tui/internal/store/storeurl"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
)

// Timeouts bound what a slow or stuck client can hold. Zero fields take
// the defaults.
type Timeouts struct {
	// ReadHeader bounds reading a request's headers (slowloris).
	ReadHeader time.Duration
	// Read bounds reading a whole request, body included.
	Read time.Duration
	// Idle bounds a keep-alive connection waiting for its next request.
	Idle time.Duration
	// Shutdown bounds draining requests in flight at shutdown.
	Shutdown time.Duration
}

// DefaultTimeouts are generous for a local socket and short for an
// attacker; the idle bound is the limits table's idle_connection.
var DefaultTimeouts = Timeouts{ReadHeader: 5 * time.Second, Read: 30 * time.Second,
	Idle: time.Duration(hubapi.LimitOf("idle_connection").Max) * time.Second, Shutdown: 5 * time.Second}

// ServeOptions configure Serve.
type ServeOptions struct {
	Home registry.Home
	// Hub is the rest of the hub's configuration; Home and Store are set by Serve.
	Hub      Config
	Timeouts Timeouts
	Log      *slog.Logger
	// Ready, if set, is called once the socket accepts connections.
	Ready func(*Hub)
	// Store names the store (storeurl): bolt:PATH or etcd://…/PREFIX;
	// empty means $VIRGO_STORE, else the home's bbolt file.
	Store string
	// TakeOver, if set, is how Serve asks a hub that holds the home from
	// inside another process (a console's) to hand it over (POST
	// /v1/hub/handover, as an operator); Serve then waits for it to let go
	// and takes the home. Nil: a running hub is refused (ErrHubRunning).
	TakeOver func(ctx context.Context) error
}

// Serve runs a hub for the home until ctx ends: it takes the home's hub
// lock (a second hub is refused with the pid holding it), opens the store
// as its one owner, listens on the socket (0600 in a 0700 directory), and
// on ctx's end stops taking requests, drains those in flight, flushes
// presence and closes the store. With opts.TakeOver, a hub serving the
// home from inside another process is asked to hand it over first.
func Serve(ctx context.Context, opts ServeOptions) (err error) {
	home := opts.Home.Dir
	if err := hubapi.CheckSocketPath(home); err != nil {
		return fmt.Errorf("hub: %w", err)
	}
	lock, claim, err := takeHome(ctx, home, opts.TakeOver)
	if err != nil {
		return err
	}
	defer lock.release()
	defer claim.release()

	st, err := storeurl.Open(ctx, storeurl.Spec(opts.Store), opts.Home.DBPath(), boltstore.Options{})
	if err != nil {
		return fmt.Errorf("hub: open the database: %w", err)
	}
	defer func() { err = errors.Join(err, st.Close()) }()

	cfg := opts.Hub
	cfg.Home, cfg.Store = opts.Home, st
	if cfg.Log == nil {
		cfg.Log = opts.Log
	}
	// Read once, here: a crash test's hub kills itself at the step named.
	if cfg.Failpoint, err = usecase.ParseFailpoint(os.Getenv(usecase.FailpointEnv)); err != nil {
		return fmt.Errorf("hub: %w", err)
	}
	h, err := New(ctx, cfg)
	if err != nil {
		return err
	}
	// Once this hub serves, clients find it: no start in the gap to fear.
	return h.serveSocket(ctx, opts.Timeouts, func(h *Hub) {
		claim.release()
		if opts.Ready != nil {
			opts.Ready(h)
		}
	})
}

// serveSocket serves the hub's API on the home's socket until ctx ends,
// running its loops alongside; the caller holds the hub lock and owns the
// store.
func (h *Hub) serveSocket(ctx context.Context, to Timeouts, ready func(*Hub)) error {
	to = to.withDefaults()
	sock := hubapi.SocketPath(h.cfg.Home.Dir)
	// Only the lock holder gets here, so a socket file left by a killed hub
	// is stale and may go.
	if err := os.Remove(sock); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("hub: remove stale socket: %w", err)
	}
	old := syscall.Umask(0o177)
	ln, err := net.Listen("unix", sock)
	syscall.Umask(old)
	if err != nil {
		return fmt.Errorf("hub: listen on %s: %w", sock, err)
	}
	if err := os.Chmod(sock, 0o600); err != nil {
		ln.Close()
		return fmt.Errorf("hub: socket mode: %w", err)
	}
	defer os.Remove(sock)
	gate := newConnGate(ln, h.cfg.MaxConnectionsPerProcess, h.cfg.MaxConnections)

	srv := &http.Server{
		Handler:           h.Handler(),
		ReadHeaderTimeout: to.ReadHeader,
		ReadTimeout:       to.Read,
		IdleTimeout:       to.Idle,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(h.log.Handler(), slog.LevelWarn),
		ConnContext:       gate.connContext,
		ConnState:         gate.track,
	}
	loops, stopLoops := context.WithCancel(context.WithoutCancel(ctx))
	loopsDone := make(chan error, 1)
	go func() { loopsDone <- h.Run(loops) }()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(gate) }()
	h.log.Info("hub serving", "socket", sock, "pid", os.Getpid(), "connections", gate.total, "per_process", gate.perProcess)
	if ready != nil {
		ready(h)
	}

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-served:
	}
	drain, cancel := context.WithTimeout(context.Background(), to.Shutdown)
	defer cancel()
	// Streams never go idle by themselves: end them first, so the drain
	// waits only for ordinary requests.
	h.endStreams()
	shutErr := srv.Shutdown(drain)
	if errors.Is(shutErr, context.DeadlineExceeded) {
		shutErr = srv.Close()
	}
	stopLoops()
	flushErr := <-loopsDone
	if errors.Is(serveErr, http.ErrServerClosed) {
		serveErr = nil
	}
	h.log.Info("hub stopped")
	return errors.Join(serveErr, shutErr, flushErr)
}

func (t Timeouts) withDefaults() Timeouts {
	d := DefaultTimeouts
	if t.ReadHeader > 0 {
		d.ReadHeader = t.ReadHeader
	}
	if t.Read > 0 {
		d.Read = t.Read
	}
	if t.Idle > 0 {
		d.Idle = t.Idle
	}
	if t.Shutdown > 0 {
		d.Shutdown = t.Shutdown
	}
	return d
}

// hubLock is the home's pid file, held with an exclusive flock while a hub
// runs. The kernel drops the lock when the process dies, SIGKILL included,
// so a killed hub never blocks the next one.
type hubLock struct{ f *os.File }

func acquireHubLock(home string) (*hubLock, error) {
	dir := hubapi.RunDir(home)
	if err := private.Dir(dir); err != nil {
		return nil, fmt.Errorf("hub: %w", err)
	}
	// O_NOFOLLOW: a link planted as the pid file is refused (ELOOP), not
	// written through.
	f, err := os.OpenFile(hubapi.PIDPath(home), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("hub: open pid file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s (pid %s holds %s); stop it or connect to it", hubapi.ErrHubRunning, home, readPID(home), hubapi.PIDPath(home))
		}
		return nil, fmt.Errorf("hub: lock pid file: %w", err)
	}
	if err = f.Truncate(0); err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("hub: write pid file: %w", err)
	}
	return &hubLock{f: f}, nil
}

// release empties the pid file and drops the lock.
func (l *hubLock) release() {
	_ = l.f.Truncate(0)
	_ = l.f.Close()
}

// readPID is the pid written in a home's pid file, or "unknown".
func readPID(home string) string {
	b, err := os.ReadFile(hubapi.PIDPath(home))
	if s := strings.TrimSpace(string(b)); err == nil && s != "" {
		return s
	}
	return "unknown"
}

// peerKey keys the connection's peer uid in a request's context.
type peerKey struct{}

// withPeer records the Unix user at the other end of a connection in the
// context of every request it carries.
func withPeer(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, peerKey{}, peerUID(c))
}

// peerOf is the Unix user a request came from, or hubapi.NoUID when the
// request did not come through the socket (a test calling the handler).
func peerOf(ctx context.Context) int {
	if uid, ok := ctx.Value(peerKey{}).(int); ok {
		return uid
	}
	return hubapi.NoUID
}
