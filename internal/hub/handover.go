package hub

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/private"
)

// A hub started inside a console or a command (InProcessOn) holds the
// home as long as that process runs, and bbolt lets one process open the
// database. So that `serve` (with its SSH console) can start while a
// console is open, such a hub hands the home over when an operator asks:
// it stops serving, and its clients — the console, persona runtimes, other
// commands — carry on with the hub serve starts, as they do after any hub
// went away (hubclient's retry). While serve takes over, no process starts
// a hub of its own in the gap: serve holds the home's takeover lock, which
// every in-process start takes shared until its hub serves.

// handOver is POST /v1/hub/handover: stop serving, so that `serve` takes
// the home over. A hub without Config.HandOver (a daemon) keeps its home.
func handOver(h *Hub, w http.ResponseWriter, _ *http.Request, id hubapi.Identity) error {
	if h.cfg.HandOver == nil {
		return hubapi.Errorf(hubapi.ErrNoHandOver, "%v (pid %d serves %s)", hubapi.ErrNoHandOver, os.Getpid(), h.cfg.Home.Dir)
	}
	h.log.Info("handing the home over to serve", "asked_by", id.Principal)
	writeJSON(w, http.StatusAccepted, hubapi.HandOver{PID: os.Getpid()})
	// The answer is written; the drain lets it reach the caller.
	h.cfg.HandOver()
	return nil
}

// takeOverWait bounds how long serve waits for a hub asked to hand over to
// let go of the home (its drain, the presence flush and the store's close),
// and for an in-process start under way to finish first.
const takeOverWait = 15 * time.Second

// takeOverPoll is how often serve looks at the locks while it waits.
const takeOverPoll = 20 * time.Millisecond

// ErrTakeOverTimeout: the hub asked to hand over still held the home when
// serve stopped waiting.
var ErrTakeOverTimeout = errors.New("the hub holding this home did not hand it over in time")

// takeOverPath is the home's takeover lock, beside the pid file.
func takeOverPath(home string) string { return hubapi.RunDir(home) + "/takeover.lock" }

// takeOverLock is the home's takeover lock held by this process: shared by
// an in-process start until its hub serves, exclusive by serve while it
// takes the home over.
type takeOverLock struct {
	f    *os.File
	once sync.Once
}

// lockTakeOver takes the home's takeover lock without waiting; held is
// true when another process holds it the other way.
func lockTakeOver(home string, how int) (l *takeOverLock, held bool, err error) {
	if err := private.Dir(hubapi.RunDir(home)); err != nil {
		return nil, false, fmt.Errorf("hub: %w", err)
	}
	// O_NOFOLLOW: a link planted as the lock file is refused, not followed.
	f, err := os.OpenFile(takeOverPath(home), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("hub: open the takeover lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, true, nil
		}
		return nil, false, fmt.Errorf("hub: lock %s: %w", takeOverPath(home), err)
	}
	return &takeOverLock{f: f}, false, nil
}

// release drops the lock; again does nothing.
func (l *takeOverLock) release() {
	if l != nil {
		l.once.Do(func() { _ = l.f.Close() })
	}
}

// startHere is an in-process start's share of the takeover lock, held
// until its hub serves (or failed to): refused, as a running hub is, while
// serve takes the home over.
func startHere(home string) (*takeOverLock, error) {
	l, held, err := lockTakeOver(home, syscall.LOCK_SH)
	if held {
		return nil, fmt.Errorf("%w: %s: `virgo-tui serve` is taking it over", hubapi.ErrHubRunning, home)
	}
	return l, err
}

// takeHome is serve's hold on the home: the hub lock, and — when a hub
// started inside another process holds it and takeOver is set — the
// takeover lock while that hub is asked to hand over (takeOver) and serve
// waits for it to let go. The takeover lock comes back held; serve
// releases it once its own socket serves.
func takeHome(ctx context.Context, home string, takeOver func(context.Context) error) (*hubLock, *takeOverLock, error) {
	lock, err := acquireHubLock(home)
	if takeOver == nil || !errors.Is(err, hubapi.ErrHubRunning) {
		return lock, nil, err
	}
	running := err
	deadline := time.Now().Add(takeOverWait)
	var claim *takeOverLock
	for claim == nil {
		var held bool
		if claim, held, err = lockTakeOver(home, syscall.LOCK_EX); err != nil {
			return nil, nil, err
		}
		if held && !waitPoll(ctx, deadline) {
			return nil, nil, fmt.Errorf("%w; another hub is starting or taking it over: try again", running)
		}
	}
	for asked := false; ; {
		lock, err := acquireHubLock(home)
		if !errors.Is(err, hubapi.ErrHubRunning) {
			if err != nil {
				claim.release()
			}
			return lock, claim, err
		}
		if !asked {
			asked = true
			if err := takeOver(ctx); err != nil {
				claim.release()
				return nil, nil, fmt.Errorf("%w; asking it to hand the home over: %w", running, err)
			}
		}
		if !waitPoll(ctx, deadline) {
			claim.release()
			return nil, nil, fmt.Errorf("%w: %w after %v (pid %s holds %s)", running, ErrTakeOverTimeout, takeOverWait, readPID(home), hubapi.PIDPath(home))
		}
	}
}

// waitPoll sleeps one poll, and reports false when ctx ended or the
// deadline passed.
func waitPoll(ctx context.Context, deadline time.Time) bool {
	if time.Now().After(deadline) {
		return false
	}
	select {
	case <-ctx.Done():
		return false
	case <-time.After(takeOverPoll):
		return true
	}
}
