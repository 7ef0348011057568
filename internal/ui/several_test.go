package ui

import (
	"strings"
	"testing"
)

// "Approve several, deliberately: select rows (space) and decide them in
// one dialog that lists each bound operation in full; the dialog's confirm
// key obeys the same standing-alone rule."
func TestApproveSeveralListsEachAndConfirmsAlone(t *testing.T) {
	m, h := queueConsole(t)
	press(t, m, "space", "j", "space")
	if s := plain(m); !strings.Contains(s, " ✓work/core/lead") || !strings.Contains(s, "▸✓work/c…/deputy") {
		t.Fatalf("space should mark c-1 and c-2:\n%s", s)
	}
	if len(h.decisions) != 0 {
		t.Fatalf("a mark decided something: %+v", h.decisions)
	}
	// Typed: M and y in a burst open nothing and approve nothing.
	press(t, m, "M", "y")
	settled(t, m)
	if m.several != nil || len(h.decisions) != 0 {
		t.Fatalf("a typed M y: dialog %v, decisions %+v; want neither", m.several != nil, h.decisions)
	}
	deliberately(t, m, "M")
	if m.several == nil {
		t.Fatal("a deliberate M did not open the dialog")
	}
	m.Update(resizeMsg(120, 40))
	s := plain(m)
	for _, want := range []string{"Approve 2 confirmations?", "1. confirmation c-1", "2. confirmation c-2",
		"external:https://registry.example.org/virgo/releases/v1.2.0/virgo-", "tui_linux_amd64.tar.gz", "host       registry.example.org",
		"address:work/core/deputy", "y approve all 2"} {
		if !strings.Contains(s, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, s)
		}
	}
	// y followed by a key within the settle time was typing.
	advanceArming(m)
	press(t, m, "y", "x")
	settled(t, m)
	if len(h.decisions) != 0 || !strings.Contains(plain(m), "typing: nothing was approved (2 confirmations") {
		t.Fatalf("y then x: decisions %+v; want none and a note:\n%s", h.decisions, plain(m))
	}
	deliberately(t, m, "M", "y")
	if len(h.decisions) != 2 || h.decisions[0].id != "c-1" || h.decisions[1].id != "c-2" ||
		!h.decisions[0].d.Approve || h.decisions[0].d.Remember {
		t.Fatalf("a deliberate y: decisions %+v; want c-1 and c-2 approved once each", h.decisions)
	}
}

// Any other key cancels the dialog, and a listed confirmation leaving the
// queue closes it: the operator agrees to exactly the list shown.
func TestApproveSeveralCancels(t *testing.T) {
	m, h := queueConsole(t)
	press(t, m, "space", "j", "space")
	for _, k := range []string{"esc", "enter", "space", "a", "A", "n"} {
		deliberately(t, m, "M", k)
		if m.several != nil || len(h.decisions) != 0 {
			t.Fatalf("%s in the dialog: open %v, decisions %+v", k, m.several != nil, h.decisions)
		}
	}
	deliberately(t, m, "M")
	m.Update(batchMsg{at: m.now(), changes: []Change{{Seq: m.seq + 1, Kind: ConfirmationDecided, ID: "c-2", DecidedBy: "human:ada", Outcome: "denied"}}})
	if m.several != nil {
		t.Fatal("the dialog stayed open after c-2 left the queue")
	}
	deliberately(t, m, "y")
	if len(h.decisions) != 0 {
		t.Fatalf("y after the dialog closed decided %+v", h.decisions)
	}
}

// advanceArming is a pause of the arming time with no key.
func advanceArming(m *Model) { advance(m, m.opts.Arming) }
