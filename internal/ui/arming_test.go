package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// "`a`, `A` and `d` act only on a confirmation that
// has been the selected row, visible on screen, for at least the arming
// time (default 600 ms, configurable); otherwise nothing is decided and the
// footer says why ("just arrived — look first")."
func TestDecisionKeysWaitForTheArmingTime(t *testing.T) {
	h := &hubDouble{snap: demoSnapshot()}
	m := console(t, h, 80, 24)
	press(t, m, "2") // c-1 is on screen from now on
	advance(m, DefaultArming-time.Millisecond)
	press(t, m, "a", "A")
	if len(h.decisions) != 0 {
		t.Fatalf("a/A on a row selected %s ago decided: %+v", DefaultArming-time.Millisecond, h.decisions)
	}
	if !strings.Contains(plain(m), "selected just now — look first") {
		t.Fatalf("the footer does not say why nothing was decided:\n%s", plain(m))
	}
	// At exactly the arming time (on a fresh console: the keys above would
	// break the quiet a decision key needs before it, see standing).
	h = &hubDouble{snap: demoSnapshot()}
	m = console(t, h, 80, 24)
	press(t, m, "2")
	advance(m, DefaultArming)
	press(t, m, "a")
	settled(t, m)
	if len(h.decisions) != 1 || h.decisions[0].id != "c-1" || !h.decisions[0].d.Approve {
		t.Fatalf("a on c-1 armed for the arming time sent %+v", h.decisions)
	}
}

// "No key is ever dropped. Keys typed into a text field (filter, jump, deny
// reason, wizard answers) always go to that field, whatever arrives
// meanwhile; a key that opens a field always opens it."
func TestNoKeyIsDropped(t *testing.T) {
	m, h := queueConsole(t)
	arrival := pendingFor("c-9", "human:henry")
	for _, c := range []struct {
		open, text string
		prompt     promptKind
	}{{"/", "atlas", promptFilter}, {":", "a A a", promptJump}, {"d", "after the freeze", promptReason}} {
		press(t, m, c.open)
		m.Update(batchMsg{changes: []Change{arrival}}) // arrives under the operator's fingers
		arrival.Seq++
		arrival.Confirmation.ID += "9"
		typeText(t, m, c.text)
		if m.prompt != c.prompt || m.input.Value() != c.text {
			t.Fatalf("%s then %q with an arrival between: prompt %d holds %q, want %d holding it all",
				c.open, c.text, m.prompt, m.input.Value(), c.prompt)
		}
		press(t, m, "esc")
	}
	if len(h.decisions) != 0 {
		t.Fatalf("typed text decided something: %+v", h.decisions)
	}
}

// `d` on a row that is not armed still opens the reason field (a key that
// opens a field always opens it), but its enter denies nothing.
func TestDenyOnAFreshRowOpensTheFieldAndSendsNothing(t *testing.T) {
	h := &hubDouble{snap: demoSnapshot()}
	m := console(t, h, 80, 24)
	press(t, m, "2", "d")
	if m.prompt != promptReason || !strings.Contains(plain(m), "look first") {
		t.Fatalf("d on a fresh row: prompt %d, screen:\n%s", m.prompt, plain(m))
	}
	typeText(t, m, "after a long and careful look")
	look(m) // armed by now, but d was pressed too early
	press(t, m, "enter")
	if len(h.decisions) != 0 || m.prompt != promptNone {
		t.Fatalf("a deny prompt opened on a fresh row sent %+v (prompt %d)", h.decisions, m.prompt)
	}
	if !strings.Contains(plain(m), "nothing was denied") {
		t.Errorf("the footer does not say nothing was denied:\n%s", plain(m))
	}
	denyWith(t, m, "spam")
	if len(h.decisions) != 1 || h.decisions[0].d.Reason != "spam" {
		t.Fatalf("d on the armed row then a reason and enter sent %+v", h.decisions)
	}
}

// "A row that becomes selected because rows moved (arrival, decision
// elsewhere, reconnect, re-sort, filter change) is re-armed."
func TestARowThatSlidUnderTheCursorIsReArmed(t *testing.T) {
	decidedC1 := Change{Seq: 11, Kind: ConfirmationDecided, ID: "c-1", DecidedBy: "human:ada", Outcome: "approved"}
	reconnect := demoSnapshot()
	reconnect.Seq = 30
	reconnect.Confirmations = reconnect.Confirmations[1:] // c-1 was decided while we were away
	causes := []struct {
		name string
		move func(t *testing.T, m *Model)
	}{
		{"decision elsewhere", func(t *testing.T, m *Model) { m.Update(batchMsg{changes: []Change{decidedC1}}) }},
		{"reconnect snapshot", func(t *testing.T, m *Model) { m.Update(snapshotMsg{snap: reconnect}) }},
		{"decision here", func(t *testing.T, m *Model) { press(t, m, "a"); settled(t, m) }},
		{"filter change", func(t *testing.T, m *Model) {
			press(t, m, "/")
			typeText(t, m, "deputy")
			press(t, m, "enter")
		}},
		{"view switch", func(t *testing.T, m *Model) { press(t, m, "1", "2") }},
	}
	for _, c := range causes {
		t.Run(c.name, func(t *testing.T) {
			m, h := queueConsole(t)
			c.move(t, m)
			sel := m.queue.table.Selected()
			if sel == "" {
				t.Fatal("nothing selected after the move")
			}
			sent := len(h.decisions)
			advance(m, m.opts.Arming/2)
			press(t, m, "a")
			if len(h.decisions) != sent {
				t.Fatalf("a pressed %s after %s moved %s under the cursor decided it: %+v", m.opts.Arming/2, c.name, sel, h.decisions[sent:])
			}
			deliberately(t, m, "a")
			if len(h.decisions) != sent+1 || h.decisions[sent].id != sel {
				t.Fatalf("after looking at %s, a sent %+v", sel, h.decisions[sent:])
			}
		})
	}
}

// A confirmation arriving into an empty queue is selected at once: it is
// armed only after the arming time.
func TestArrivalIntoAnEmptyQueueIsNotArmed(t *testing.T) {
	snap := demoSnapshot()
	snap.Confirmations = nil
	h := &hubDouble{snap: snap}
	m := console(t, h, 80, 24)
	press(t, m, "2")
	advance(m, 5*time.Second) // the operator has looked at the empty queue for long
	m.Update(batchMsg{changes: []Change{pendingFor("c-9", "human:henry")}})
	press(t, m, "a")
	if len(h.decisions) != 0 {
		t.Fatal("a confirmation that appeared under the cursor was approved by a key pressed at once")
	}
	deliberately(t, m, "a")
	if len(h.decisions) != 1 || h.decisions[0].id != "c-9" {
		t.Fatalf("after looking, a sent %+v", h.decisions)
	}
}

// An arrival elsewhere in the list does not disarm the row the operator
// is looking at: selection follows the id, not the row number.
func TestArrivalElsewhereKeepsTheSelectionArmed(t *testing.T) {
	m, h := queueConsole(t)
	m.Update(batchMsg{changes: []Change{pendingFor("c-9", "human:henry")}})
	press(t, m, "a")
	settled(t, m)
	if len(h.decisions) != 1 || h.decisions[0].id != "c-1" {
		t.Fatalf("a on the armed c-1 after an arrival elsewhere sent %+v", h.decisions)
	}
}

func TestArmingIsConfigurable(t *testing.T) {
	h := &hubDouble{snap: demoSnapshot()}
	m := console(t, h, 80, 24, Options{Arming: 2 * time.Second})
	press(t, m, "2")
	advance(m, time.Second)
	press(t, m, "a")
	if len(h.decisions) != 0 {
		t.Fatal("Options.Arming ignored: a acted after 1 s of a 2 s arming time")
	}
	advance(m, 2*time.Second) // the quiet before a decision key is the arming time too
	press(t, m, "a")
	settled(t, m)
	if len(h.decisions) != 1 {
		t.Fatal("a did not act after the configured 2 s")
	}
}

// "A decision made by the same operator in another
// console is shown as "decided by you in another console"."
func TestDecidedByYouInAnotherConsole(t *testing.T) {
	m, _ := queueConsole(t)
	m.Update(batchMsg{changes: []Change{{Seq: 11, Kind: ConfirmationDecided, ID: "c-2", DecidedBy: "human:henry", Outcome: "approved"}}})
	if s := plain(m); !strings.Contains(s, "approved, decided by you in another console") {
		t.Fatalf("the note does not say the operator decided it elsewhere:\n%s", s)
	}
}

// This console's own decision, streamed back before the hub's answer,
// is not reported as made in another console.
func TestOwnDecisionStreamedBackIsNotAnotherConsoles(t *testing.T) {
	m, _ := queueConsole(t)
	m.Update(keyMsg("a"))
	advance(m, m.opts.Settle)
	m.Update(batchMsg{at: m.now()}) // sent; the answer has not come back yet
	m.Update(batchMsg{changes: []Change{{Seq: 11, Kind: ConfirmationDecided, ID: "c-1", DecidedBy: "human:henry", Outcome: "approved"}}})
	if s := plain(m); strings.Contains(s, "another console") {
		t.Fatalf("this console's own decision is reported as another console's:\n%s", s)
	}
}

// An esc typed right before the next key reaches the console as one alt+key
// press when the terminal reads them together (a tmux storm on an idle
// machine did): esc then `/` arrived as alt+/ while the deny reason was
// open, the field stayed open, the storm's next words went into it and
// its enter denied. In a field, alt+key is taken as what it was typed as:
// esc, then the key.
func TestEscRunIntoTheNextKeyStillCancelsTheField(t *testing.T) {
	m, h := queueConsole(t)
	press(t, m, "d")
	typeText(t, m, "after the freeze")
	m.Update(tea.KeyPressMsg{Code: '/', Mod: tea.ModAlt})
	if m.prompt != promptFilter {
		t.Fatalf("esc and / run together in the deny reason: prompt %d, want the reason cancelled and the filter open", m.prompt)
	}
	typeText(t, m, "atlas")
	press(t, m, "enter", "esc")
	if len(h.decisions) != 0 {
		t.Fatalf("a deny reason left with esc, then a filter's enter, sent %+v", h.decisions)
	}
}
