package hub

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubclient"
)

// Another process's hub holds the home's lock before its socket listens,
// and after it stopped listening: Connect waits for it rather than fail.
func TestConnectWaitsWhileTheLockIsHeldWithoutASocket(t *testing.T) {
	home := shortHome(t)
	lock, err := acquireHubLock(home.Dir)
	mustNil(t, err)
	const held = 300 * time.Millisecond
	go func() { time.Sleep(held); lock.release() }()
	t0 := time.Now()
	c, stop, err := Connect(context.Background(), home, hubclient.AsOperator("henry"))
	mustNil(t, err)
	defer func() { mustNil(t, stop()) }()
	if waited := time.Since(t0); waited < held {
		t.Fatalf("Connect returned after %v, before the lock was released", waited)
	}
	h, err := c.Health(context.Background())
	mustNil(t, err)
	if h.PID != os.Getpid() {
		t.Fatalf("connected to pid %d, want the in-process hub of %d", h.PID, os.Getpid())
	}
}

// A lock held by a hub that never serves: Connect gives up after about
// connectPatience with ErrNoHub, naming the pid.
func TestConnectGivesUpOnAHubThatNeverServes(t *testing.T) {
	home := shortHome(t)
	lock, err := acquireHubLock(home.Dir)
	mustNil(t, err)
	defer lock.release()
	t0 := time.Now()
	_, _, err = Connect(context.Background(), home, hubclient.AsOperator("henry"))
	waited := time.Since(t0)
	if !errors.Is(err, hubclient.ErrNoHub) || !errors.Is(err, ErrHubRunning) {
		t.Fatalf("Connect: %v, want ErrNoHub and ErrHubRunning", err)
	}
	if want := fmt.Sprintf("pid %d", os.Getpid()); !strings.Contains(err.Error(), want) {
		t.Fatalf("%q does not name %q", err, want)
	}
	if waited < connectPatience/2 || waited > connectPatience+time.Second {
		t.Fatalf("gave up after %v, want about %v", waited, connectPatience)
	}
}
