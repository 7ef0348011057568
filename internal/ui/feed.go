package ui

import (
	"context"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
)

// ConnState is the console's connection to the hub.
type ConnState uint8

// The connection states shown in the status bar.
const (
	Connecting ConnState = iota
	Connected
	Disconnected
)

// String is the state as the status bar words it.
func (s ConnState) String() string {
	switch s {
	case Connected:
		return "connected"
	case Disconnected:
		return "disconnected"
	}
	return "connecting"
}

// feed buffers the hub's change stream between frames. A goroutine pumps
// the subscription into it; the ticker's command drains it into one
// batchMsg, so a burst of a thousand events costs one Update and one frame.
type feed struct {
	mu      sync.Mutex
	pending []Change
	ended   bool // the stream closed since the last drain
}

func (f *feed) pump(ch <-chan Batch) {
	for b := range ch {
		f.mu.Lock()
		f.pending = append(f.pending, b.Changes...)
		f.mu.Unlock()
	}
	f.mu.Lock()
	f.ended = true
	f.mu.Unlock()
}

func (f *feed) drain() (changes []Change, ended bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	changes, f.pending = f.pending, nil
	ended, f.ended = f.ended, false
	return changes, ended
}

// Messages of the feed.
type (
	// snapshotMsg carries a fresh snapshot (at start and after a reconnect).
	snapshotMsg struct {
		snap Snapshot
		err  error
	}
	// subscribedMsg reports the outcome of a Subscribe call.
	subscribedMsg struct{ err error }
	// batchMsg carries every change that arrived since the last tick.
	batchMsg struct {
		changes []Change
		ended   bool
		at      time.Time
	}
	// reconnectMsg asks for a new snapshot after a pause.
	reconnectMsg struct{}
)

func fetchSnapshot(ctx context.Context, c Client) tea.Cmd {
	return func() tea.Msg {
		s, err := c.Snapshot(ctx)
		return snapshotMsg{snap: s, err: err}
	}
}

func subscribe(ctx context.Context, c Client, f *feed, after uint64) tea.Cmd {
	return func() tea.Msg {
		ch, err := c.Subscribe(ctx, after)
		if err != nil {
			return subscribedMsg{err: err}
		}
		go f.pump(ch)
		return subscribedMsg{}
	}
}

// tick schedules the next drain of the feed.
func tick(d time.Duration, f *feed) tea.Cmd {
	return tea.Tick(d, func(t time.Time) tea.Msg {
		changes, ended := f.drain()
		return batchMsg{changes: changes, ended: ended, at: t}
	})
}

func reconnectAfter(d time.Duration) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg { return reconnectMsg{} })
}
