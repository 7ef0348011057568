package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/harness"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/private"
)

// WakePrompt is what a wake types into an idle session: fixed text, never
// a word a persona wrote (a message's subject typed into another persona's
// session would be a prompt of the sender's). What the wake is about the
// woken persona learns from reconcile_wake.
const WakePrompt = "virgo: new work arrived for you. Call reconcile_wake to see what it is about."

// WakeRetry is how often a wake that had to wait (the session working, or
// an operator attached) is tried again.
const WakeRetry = time.Second

// Source is what the waker reads of the hub: the change stream and the
// presence list (a hub client acting as an operator).
type Source interface {
	Snapshot(ctx context.Context) (hubapi.Snapshot, error)
	Subscribe(ctx context.Context, after uint64) <-chan []hubapi.Change
	Presence(ctx context.Context) ([]hubapi.Presence, error)
}

// Waker types one wake prompt into a persona's idle session when work — a
// coordination message, and with it every task, decision and reply the
// hub delivers as one — arrives for its seat. It wakes only at a turn
// boundary: the session's hooks said idle (its Stop, or a session start)
// and nothing since, so the harness waits at an empty input line; never
// while it works, and never while an operator is attached (who may be
// typing): then it tries again every WakeRetry. One wake per idle spell:
// the prompt starts a turn (UserPromptSubmit), and reconcile_wake answers
// everything that waited.
//
// Of the processes that run sessions on a home (the console, serve), one
// wakes at a time: the holder of <home>/sessions/wake.lock.
type Waker struct {
	Home string
	Tmux Tmux
	Src  Source
	// Woke, when set, is told of each wake (a log line).
	Woke func(address string)

	presence map[string]hubapi.Presence // by address
	pending  map[string]bool            // seats with work not yet woken for
	woken    map[string]time.Time       // the idle spell (ActivityAt) a wake was typed into
	lock     *os.File
}

// Run wakes sessions until ctx ends.
func (w *Waker) Run(ctx context.Context) error {
	w.presence, w.pending, w.woken = map[string]hubapi.Presence{}, map[string]bool{}, map[string]time.Time{}
	defer func() {
		if w.lock != nil {
			w.lock.Close()
		}
	}()
	// Work that arrives from now on wakes: the stream is followed from the
	// snapshot's head, and presence read after it.
	snap, err := w.Src.Snapshot(ctx)
	if err != nil {
		return fmt.Errorf("waking sessions: %w", err)
	}
	changes := w.Src.Subscribe(ctx, snap.Seq)
	if err := w.refresh(ctx); err != nil {
		return err
	}
	tick := time.NewTicker(WakeRetry)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case batch, ok := <-changes:
			if !ok {
				return ctx.Err()
			}
			for _, c := range batch {
				w.apply(ctx, c)
			}
		case <-tick.C:
		}
		w.wakeAll(ctx)
	}
}

// refresh reads every persona's presence afresh (at the start, and after
// the stream lost changes).
func (w *Waker) refresh(ctx context.Context) error {
	ps, err := w.Src.Presence(ctx)
	if err != nil {
		return fmt.Errorf("waking sessions: %w", err)
	}
	for _, p := range ps {
		w.presence[p.Address] = p
	}
	return nil
}

// apply takes one change in: presence as it moves, work as it arrives.
func (w *Waker) apply(ctx context.Context, c hubapi.Change) {
	if c.Kind == hubapi.KindResync {
		_ = w.refresh(ctx) // the next tick tries again with what is known
		return
	}
	if c.Delete || (c.Kind != hubapi.KindPresence && c.Kind != hubapi.KindMessage) {
		return
	}
	v, err := c.Payload()
	if err != nil {
		return
	}
	switch v := v.(type) {
	case hubapi.Presence:
		w.presence[v.Address] = v
	case coord.Message:
		w.pending[v.To] = true
	}
}

// wakeAll tries each pending wake, on presence read afresh: the stream's
// presence events come in batches and may trail a message that arrived
// after a turn began, and a wake decided on a stale idle would be typed
// into a working session.
func (w *Waker) wakeAll(ctx context.Context) {
	if len(w.pending) == 0 || !w.holdLock() {
		return
	}
	if err := w.refresh(ctx); err != nil {
		return // tried again at the next tick
	}
	for address := range w.pending {
		if w.wake(ctx, address) {
			delete(w.pending, address)
		}
	}
}

// wake types the wake prompt into the session of address if it is idle,
// running and no operator is attached, and says whether the work is
// answered (woken, or no session to wake: it is told at its next start by
// reconcile_wake, as any runtime is).
func (w *Waker) wake(ctx context.Context, address string) bool {
	p := w.presence[address]
	name := harness.SessionName(address)
	pane, err := w.Tmux.Pane(ctx, name)
	switch {
	case errors.Is(err, ErrNotRunning), err == nil && pane.Dead:
		return true // no session runs here to wake
	case err != nil:
		return false
	case p.Session != hubapi.SessionIdle:
		return false // working (or not yet started): woken at its Stop
	case pane.Attached > 0:
		return false // an operator may be typing
	case w.woken[address].Equal(p.ActivityAt) && !p.ActivityAt.IsZero():
		return true // this idle spell was woken already
	}
	if err := w.Tmux.Type(ctx, name, WakePrompt); err != nil {
		return false
	}
	w.woken[address] = p.ActivityAt
	if w.Woke != nil {
		w.Woke(address)
	}
	return true
}

// holdLock takes <home>/sessions/wake.lock if it is not held yet, and says
// whether this waker holds it.
func (w *Waker) holdLock() bool {
	if w.lock != nil {
		return true
	}
	if err := private.Dir(harness.SessionsDir(w.Home)); err != nil {
		return false
	}
	f, err := os.OpenFile(filepath.Join(harness.SessionsDir(w.Home), "wake.lock"), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return false
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return false
	}
	w.lock = f
	return true
}
