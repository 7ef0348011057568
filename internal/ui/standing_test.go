package ui

import (
	"strings"
	"testing"
	"time"
)

// typeAt types text into the console a key every gap, as a person does, a
// frame tick between keys; "\n" is enter.
func typeAt(t *testing.T, m *Model, text string, gap time.Duration) {
	t.Helper()
	for _, r := range text {
		k := string(r)
		switch r {
		case '\n':
			k = "enter"
		case ' ':
			k = "space"
		}
		press(t, m, k)
		advance(m, gap)
		_, cmd := m.Update(nudge{}) // the frame tick between keys
		runCmd(m, cmd)
	}
}

// The issue: "On an armed row of the queue, typing the sentence "are you
// there" approved a destructive delete at its first `a`. "looks good,
// approve it⏎" denied a retirement: the `d` in "good" opened the reason
// field and `enter` sent ", approve it"."
func TestTypedSentencesDecideNothing(t *testing.T) {
	for _, text := range []string{"are you there", "looks good, approve it\n", "ok Approve and yes\n"} {
		t.Run(strings.TrimSpace(text), func(t *testing.T) {
			m, h := queueConsole(t) // c-1 armed, the last key long ago
			typeAt(t, m, text, 120*time.Millisecond)
			settled(t, m)
			look(m)
			if len(h.decisions) != 0 {
				t.Fatalf("%q typed into the queue decided %+v", text, h.decisions)
			}
			said := false
			for _, n := range m.notes.notes {
				said = said || strings.HasPrefix(n.text, "typing: nothing was")
			}
			if !said {
				t.Errorf("no note says the typing decided nothing: %+v", m.notes.notes)
			}
		})
	}
}

// The settle time after a decision key: a key within it cancels the
// decision (the key itself still acts: none is dropped); after it the
// decision leaves with the next frame.
func TestDecisionWaitsOutTheSettleTime(t *testing.T) {
	m, h := queueConsole(t)
	press(t, m, "a")
	advance(m, DefaultSettle-time.Millisecond)
	_, cmd := m.Update(nudge{})
	runCmd(m, cmd)
	if len(h.decisions) != 0 || !strings.Contains(plain(m), "approve in 300ms unless a key comes") {
		t.Fatalf("a decided before its settle time: %+v\n%s", h.decisions, plain(m))
	}
	press(t, m, "j")
	settled(t, m)
	if len(h.decisions) != 0 || m.queue.table.Selected() != "c-2" || !strings.Contains(plain(m), "typing: nothing was approved") {
		t.Fatalf("a key within the settle time: decisions %+v, selection %s\n%s", h.decisions, m.queue.table.Selected(), plain(m))
	}
	m2, h2 := queueConsole(t, Options{Settle: time.Second})
	press(t, m2, "a")
	advance(m2, 999*time.Millisecond)
	_, cmd = m2.Update(nudge{})
	runCmd(m2, cmd)
	if len(h2.decisions) != 0 {
		t.Fatal("Options.Settle ignored: a decided after 999 ms of a 1 s settle time")
	}
	settled(t, m2)
	if len(h2.decisions) != 1 || h2.decisions[0].id != "c-1" {
		t.Fatalf("a alone on an armed row, then the settle time: %+v", h2.decisions)
	}
}

// A `d` with a key right after it was typing: its field opens and keeps
// the text (no key is ever dropped), but its enter sends nothing.
func TestDenyTypedInABurstSendsNothing(t *testing.T) {
	m, h := queueConsole(t)
	typeAt(t, m, "d, approve it\n", 100*time.Millisecond)
	settled(t, m)
	if len(h.decisions) != 0 {
		t.Fatalf("d typed in a burst denied: %+v", h.decisions)
	}
	// Deliberate: d alone, a pause, the reason, enter, and the settle time.
	denyWith(t, m, "not before the freeze")
	if len(h.decisions) != 1 || h.decisions[0].d.Reason != "not before the freeze" {
		t.Fatalf("a deliberate deny sent %+v", h.decisions)
	}
}
