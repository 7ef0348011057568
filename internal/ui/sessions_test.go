package ui

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// sessionsDouble records the session actions the console asks for.
type sessionsDouble struct {
	mu    sync.Mutex
	calls []string
	err   error
}

func (s *sessionsDouble) record(call string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, call)
}

func (s *sessionsDouble) Start(_ context.Context, address string) (string, error) {
	s.record("start " + address)
	return "started " + address + ": claude-code, resumed", s.err
}

func (s *sessionsDouble) Stop(_ context.Context, address string) (string, error) {
	s.record("stop " + address)
	return "stopped the session of " + address, s.err
}

func (s *sessionsDouble) Attach(_ context.Context, address string) (tea.ExecCommand, error) {
	s.record("attach " + address)
	return nopExec{}, s.err
}

type nopExec struct{}

func (nopExec) Run() error          { return nil }
func (nopExec) SetStdin(io.Reader)  {}
func (nopExec) SetStdout(io.Writer) {}
func (nopExec) SetStderr(io.Writer) {}

// In the presence view r, x and t start, stop and attach to the selected
// persona's session, through the sessions plugin, the answer in the status
// line; a retired persona runs none, and a console without the plugin says
// so.
func TestPresenceSessionKeys(t *testing.T) {
	s := &sessionsDouble{}
	m := console(t, &hubDouble{snap: demoSnapshot()}, 100, 30, Options{Plugins: Plugins{Sessions: s}})
	look(m)
	press(t, m, "j", "r") // below the retired home/secretary
	if !strings.Contains(plain(m), "started root/secretary: claude-code, resumed") {
		t.Fatalf("after r the status line is:\n%s", plain(m))
	}
	press(t, m, "j", "x", "t")
	if want := "start root/secretary,stop work/coordinator,attach work/coordinator"; strings.Join(s.calls, ",") != want {
		t.Fatalf("calls %v, want %s", s.calls, want)
	}
	s.err = errors.New("the seat's session is already running")
	press(t, m, "r")
	if !strings.Contains(plain(m), "already running") {
		t.Fatalf("a refused start is not shown:\n%s", plain(m))
	}
	press(t, m, "g", "r") // the retired home/secretary
	if n := len(s.calls); !strings.Contains(plain(m), "is retired") || n != 4 {
		t.Fatalf("r on a retired persona: calls %v\n%s", s.calls, plain(m))
	}

	bare := console(t, &hubDouble{snap: demoSnapshot()}, 100, 30)
	look(bare)
	press(t, bare, "j", "r")
	if !strings.Contains(plain(bare), "started without resident sessions") {
		t.Fatalf("r without the plugin:\n%s", plain(bare))
	}
}

// The state column shows a live runtime's session turn; waiting is a
// working session whose persona waits on a human.
func TestPresenceShowsTheSessionsTurn(t *testing.T) {
	p := Persona{State: PresenceActive, Session: "waiting"}
	if got := sessionCell(&p); !strings.HasSuffix(got, " waiting") {
		t.Fatalf("state cell %q", got)
	}
	p.State, p.Session = PresenceOffline, "ended"
	if got := sessionCell(&p); got != stateCell(PresenceOffline) {
		t.Fatalf("an ended session's cell %q, want the presence state", got)
	}
}
