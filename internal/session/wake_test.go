package session

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/events"
	"github.com/virgo-hub/virgo-tui/internal/harness"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// feed is a Source the test drives: each Subscribe gets every change the
// test sends from then on.
type feed struct {
	mu   sync.Mutex
	subs []chan []hubapi.Change
	// now is the presence the hub lists now (GET /v1/presence).
	now []hubapi.Presence
}

func (f *feed) Snapshot(context.Context) (hubapi.Snapshot, error) { return hubapi.Snapshot{}, nil }

func (f *feed) Presence(context.Context) ([]hubapi.Presence, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now, nil
}

func (f *feed) Subscribe(ctx context.Context, _ uint64) <-chan []hubapi.Change {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := make(chan []hubapi.Change, 16)
	f.subs = append(f.subs, ch)
	return ch
}

func (f *feed) send(t *testing.T, kind events.EventKind, payload any) {
	t.Helper()
	b, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, ch := range f.subs {
		ch <- []hubapi.Change{{Kind: kind, Data: b}}
	}
}

// A wake is typed only at a turn boundary: not while the session works,
// once per idle spell, not while an operator is attached (then as soon as
// the operator leaves), and by one waker of the home's two. The session is
// real (tmux on the home's socket) and what reaches its input is read back
// from the program in it.
func TestWakeOnlyAtATurnBoundary(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	home := t.TempDir()
	tm, err := ForHome(home)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", tm.Socket(), "kill-server").Run() })
	if _, err := Prepare(home, "work/core/lead"); err != nil {
		t.Fatal(err)
	}
	typed := filepath.Join(home, "typed")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	name := harness.SessionName("work/core/lead")
	if err := tm.Start(ctx, name, home, nil, []string{"sh", "-c", "cat > " + harness.ShellWord(typed)}); err != nil {
		t.Fatal(err)
	}
	src := &feed{}
	for range 2 { // two processes run the home's sessions: one wakes
		w := &Waker{Home: home, Tmux: tm, Src: src}
		go func() { _ = w.Run(ctx) }()
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		src.mu.Lock()
		n := len(src.subs)
		src.mu.Unlock()
		if n == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the wakers did not subscribe")
		}
	}
	wakes := func() int {
		b, _ := os.ReadFile(typed)
		return strings.Count(string(b), WakePrompt)
	}
	waitWakes := func(want int, within time.Duration) {
		t.Helper()
		deadline := time.Now().Add(within)
		for wakes() != want {
			if time.Now().After(deadline) {
				t.Fatalf("%d wakes typed, want %d", wakes(), want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	stays := func(want int) {
		t.Helper()
		time.Sleep(2*WakeRetry + 200*time.Millisecond)
		if got := wakes(); got != want {
			t.Fatalf("%d wakes typed, want %d", got, want)
		}
	}
	at := time.Now().UTC()
	presence := func(s events.SessionState) {
		at = at.Add(time.Second)
		p := hubapi.Presence{ID: "g1", Address: "work/core/lead", State: hubapi.StateActive, Session: s, ActivityAt: at}
		src.mu.Lock()
		src.now = []hubapi.Presence{p}
		src.mu.Unlock()
		src.send(t, hubapi.KindPresence, p)
	}
	message := func() { src.send(t, hubapi.KindMessage, coord.Message{ID: "m-1", To: "work/core/lead", Body: "work"}) }

	presence(events.SessionWorking)
	message()
	stays(0) // never while it works

	presence(events.SessionIdle)
	waitWakes(1, WakeSettle+3*time.Second) // at its Stop, once the harness takes keys
	message()
	stays(1) // once per idle spell

	// An operator attaches (a terminal of another tmux server, as a real
	// one): the next spell's wake waits until they detach.
	outer := "virgo-test-outer-" + filepath.Base(home)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", outer, "kill-server").Run() })
	attach := exec.Command("tmux", "-L", outer, "-f", "/dev/null", "new-session", "-d", "-x", "80", "-y", "24",
		"env -u TMUX tmux -L "+tm.Socket()+" attach-session -t ="+name)
	if out, err := attach.CombinedOutput(); err != nil {
		t.Fatalf("attach: %v %s", err, out)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if p, err := tm.Pane(ctx, name); err == nil && p.Attached > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the operator's terminal did not attach")
		}
	}
	presence(events.SessionWorking)
	presence(events.SessionIdle)
	message()
	stays(1) // an operator is attached
	// The operator leaves. Their terminal's server may already be gone
	// (its one pane is the attach client, which tmux ends with it); that
	// is a departure too, and the wake that follows is what is asserted.
	if out, err := exec.Command("tmux", "-L", outer, "kill-server").CombinedOutput(); err != nil &&
		!strings.Contains(string(out), "no server running") && !strings.Contains(string(out), "error connecting") {
		t.Fatalf("the operator's terminal would not close: %v %s", err, out)
	}
	waitWakes(2, 3*time.Second) // they left: woken now
	stays(2)

	// The stream's presence trails the hub's: a turn began (the hub lists
	// it working) but the stream still said idle when work arrived. The
	// wake is decided on the hub's presence, not the stream's.
	presence(events.SessionWorking)
	src.mu.Lock()
	src.now[0].Session, src.now[0].ActivityAt = events.SessionWorking, at.Add(time.Second)
	src.mu.Unlock()
	presence(events.SessionIdle) // the stream's stale idle
	src.mu.Lock()
	src.now[0].Session = events.SessionWorking // the hub's truth: working
	src.mu.Unlock()
	message()
	stays(2)
}
