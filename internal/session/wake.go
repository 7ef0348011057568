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

// A harness reports idle before it takes keys again: Claude Code 2.1.328
// runs its SessionStart hook early in its start and its Stop hook before
// the turn is over, and keys typed in the next moments are lost (about
// three wakes in four typed right after SessionStart: the text, or its
// Enter, which leaves the text unsent in the input line) or turned into a
// new line of the input. So a wake waits until the idle spell is
// WakeSettle old, and one the session has not taken (left the spell,
// with its UserPromptSubmit) within WakeConfirm is typed again — Type
// clears the input first — up to WakeTries times in one spell.
const (
	WakeSettle  = 2 * time.Second
	WakeConfirm = 5 * time.Second
	WakeTries   = 5
)

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
// everything that waited; a wake the harness did not take (lost keys) is
// typed again (WakeConfirm, WakeTries).
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
	idleSeen map[string]time.Time       // when this waker saw each seat's idle spell begin
	pending  map[string]bool            // seats with work not yet woken for
	woken    map[string]typed           // the wake typed into each seat's idle spell, not yet taken
	lock     *os.File
}

// typed is a wake typed into an idle spell that the session has not yet
// been seen to take.
type typed struct {
	spell time.Time // the spell's ActivityAt
	at    time.Time // when it was last typed
	tries int
}

// Run wakes sessions until ctx ends.
func (w *Waker) Run(ctx context.Context) error {
	w.presence, w.idleSeen, w.pending, w.woken = map[string]hubapi.Presence{}, map[string]time.Time{}, map[string]bool{}, map[string]typed{}
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
		w.see(p)
	}
	return nil
}

// see takes a persona's presence in, noting when an idle spell begins. A
// presence older than the one known (the stream's batches trail the hub's
// list) is dropped: it would undo a newer one, and start its spell again.
func (w *Waker) see(p hubapi.Presence) {
	prev, ok := w.presence[p.Address]
	if ok && p.ActivityAt.Before(prev.ActivityAt) {
		return
	}
	if p.Session == hubapi.SessionIdle && (!ok || prev.Session != hubapi.SessionIdle || p.ActivityAt.After(prev.ActivityAt)) {
		w.idleSeen[p.Address] = time.Now()
	}
	w.presence[p.Address] = p
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
		w.see(v)
	case coord.Message:
		w.pending[v.To] = true
	}
}

// wakeAll follows each typed wake and tries each pending one, on presence
// read afresh: the stream's presence events come in batches and may trail
// a message that arrived after a turn began, and a wake decided on a stale
// idle would be typed into a working session.
func (w *Waker) wakeAll(ctx context.Context) {
	if len(w.pending) == 0 && len(w.woken) == 0 || !w.holdLock() {
		return
	}
	if err := w.refresh(ctx); err != nil {
		return // tried again at the next tick
	}
	for address := range w.woken {
		w.confirm(ctx, address)
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
// reconcile_wake, as any runtime is). Whether the session took the wake
// is confirm's.
func (w *Waker) wake(ctx context.Context, address string) bool {
	p := w.presence[address]
	name := harness.SessionName(address)
	pane, err := w.Tmux.Pane(ctx, name)
	last, typedBefore := w.woken[address]
	switch {
	case errors.Is(err, ErrNotRunning), err == nil && pane.Dead:
		return true // no session runs here to wake
	case err != nil:
		return false
	case p.Session != hubapi.SessionIdle:
		return false // working (or not yet started): woken at its Stop
	case pane.Attached > 0:
		return false // an operator may be typing
	case typedBefore && last.spell.Equal(p.ActivityAt) && !p.ActivityAt.IsZero():
		return true // this idle spell was woken already
	case time.Since(w.idleSeen[address]) < WakeSettle:
		return false // the harness may not take keys yet
	}
	if err := w.Tmux.Type(ctx, name, WakePrompt); err != nil {
		return false
	}
	w.woken[address] = typed{spell: p.ActivityAt, at: time.Now(), tries: 1}
	if w.Woke != nil {
		w.Woke(address)
	}
	return true
}

// confirm follows a typed wake of address: taken when the session left the
// idle spell it was typed into; else typed again after WakeConfirm, under
// wake's conditions, at most WakeTries times in all.
func (w *Waker) confirm(ctx context.Context, address string) {
	last, p := w.woken[address], w.presence[address]
	if p.Session != hubapi.SessionIdle || p.ActivityAt.After(last.spell) || last.tries >= WakeTries {
		delete(w.woken, address) // taken, or the harness takes no keys: reconcile_wake tells at its next turn
		return
	}
	if time.Since(last.at) < WakeConfirm {
		return
	}
	name := harness.SessionName(address)
	pane, err := w.Tmux.Pane(ctx, name)
	switch {
	case errors.Is(err, ErrNotRunning), err == nil && pane.Dead:
		delete(w.woken, address)
		return
	case err != nil, pane.Attached > 0:
		return
	}
	if err := w.Tmux.Type(ctx, name, WakePrompt); err != nil {
		return
	}
	last.at, last.tries = time.Now(), last.tries+1
	w.woken[address] = last
	if w.Woke != nil {
		w.Woke(address)
	}
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
