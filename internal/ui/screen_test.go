package ui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/virgo-hub/virgo-tui/internal/ui/golden"
	"github.com/virgo-hub/virgo-tui/internal/ui/keymap"
)

// "An empty installation says how to begin ('press 3 to register
// the first persona, root/secretary')."
func TestGoldenEmptyInstallation(t *testing.T) {
	golden.Settled(t, "empty-installation", func(w, h int) string {
		m := console(t, &hubDouble{snap: Snapshot{Installation: "fresh", Home: "/home/henry/.virgo", Operator: "human:henry"}}, w, h)
		return plain(m)
	})
}

func TestEmptyInstallationNamesTheOperatorsWizardKey(t *testing.T) {
	k, err := keymap.Parse("keys.json", []byte(`{"wizard": ["n"]}`))
	if err != nil {
		t.Fatal(err)
	}
	m := console(t, &hubDouble{snap: Snapshot{Operator: "human:henry"}}, 80, 24, Options{Keys: &k})
	if s := plain(m); !strings.Contains(s, "Press n to register the first persona, root/secretary.") {
		t.Fatalf("the empty installation should name the wizard key as bound:\n%s", s)
	}
	press(t, m, "n")
	if m.view != viewWizard {
		t.Errorf("the key it names should open the wizard; view is %d", m.view)
	}
}

// "Below the smallest usable size (state it; e.g. 60×16) the
// screen says 'terminal too small' instead of a collapsed table." The
// pinned sizes are one column and one line below the smallest usable size.
func TestGoldenTerminalTooSmall(t *testing.T) {
	for _, size := range [][2]int{{minWidth - 1, 24}, {120, minHeight - 1}} {
		w, h := size[0], size[1]
		m := console(t, &hubDouble{snap: demoSnapshot()}, w, h)
		press(t, m, "2")
		name := fmt.Sprintf("too-small-%dx%d", w, h)
		got := plain(m)
		golden.Shape(t, name, got, w, h)
		golden.Check(t, name, got)
		if !strings.Contains(got, "terminal too small") || !strings.Contains(got, fmt.Sprintf("needs at least %d×%d", minWidth, minHeight)) {
			t.Errorf("%s does not say it is too small and what it needs:\n%s", name, got)
		}
	}
}

// No key acts on rows the operator cannot see; quit still quits, and the
// view comes back whole when the terminal grows.
func TestTooSmallDecidesNothing(t *testing.T) {
	m, h := queueConsole(t)
	m.Update(resizeMsg(minWidth, minHeight-1))
	press(t, m, "a", "A", "d", "j", "enter")
	if len(h.decisions) != 0 || m.prompt != promptNone || m.queue.pane.open || m.queue.table.Selected() != "c-1" {
		t.Fatalf("keys acted on a screen too small to show them: decisions %+v, prompt %d, selected %s",
			h.decisions, m.prompt, m.queue.table.Selected())
	}
	if _, cmd := m.Update(keyMsg("q")); cmd == nil {
		t.Fatal("q should still quit")
	} else if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("q should still quit")
	}
	m.Update(resizeMsg(minWidth, minHeight))
	s := plain(m)
	golden.Shape(t, "smallest usable", s, minWidth, minHeight)
	if strings.Contains(s, "too small") || !strings.Contains(s, "REQUESTER") || !strings.Contains(s, "TARGET") {
		t.Fatalf("at %d×%d the queue should be usable:\n%s", minWidth, minHeight, s)
	}
}

// The widened detail pane, pinned: the activation c-2 with its
// class-matrix diff to its last line, and the long target of c-1 wrapped
// whole.
func TestGoldenWidenedDetail(t *testing.T) {
	for _, c := range []struct {
		name string
		keys []string
	}{
		{"queue-detail-widened", []string{"2", "j", "z"}},
		{"queue-detail-widened-long-target", []string{"2", "enter", "enter"}},
	} {
		golden.Settled(t, c.name, func(w, h int) string {
			m := console(t, &hubDouble{snap: demoSnapshot()}, w, h)
			press(t, m, c.keys...)
			return plain(m)
		})
	}
}
