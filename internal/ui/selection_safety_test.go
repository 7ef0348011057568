package ui

import (
	"strings"
	"testing"
	"time"
)

// A filter that hides every row leaves nothing selected: `a` must not
// approve a confirmation the operator cannot see.
func TestApproveWithEveryRowFilteredOutSendsNothing(t *testing.T) {
	m, h := queueConsole(t)
	press(t, m, "/")
	typeText(t, m, "zzzz")
	press(t, m, "enter")
	if n := m.queue.table.Len(); n != 0 {
		t.Fatalf("filter zzzz shows %d rows, want 0", n)
	}
	press(t, m, "a", "A", "d")
	if len(h.decisions) != 0 || m.prompt != promptNone {
		t.Fatalf("keys on an empty filtered queue acted: decisions %+v, prompt %d", h.decisions, m.prompt)
	}
	if !strings.Contains(plain(m), "nothing selected: the filter shows no confirmations") {
		t.Errorf("the status line should say why nothing was decided:\n%s", plain(m))
	}
	press(t, m, "esc") // the filter cleared: the rows and a selection return
	if id := m.queue.table.Selected(); id == "" {
		t.Fatal("clearing the filter should select a row again")
	}
}

// A reconnect snapshot that drops the selected confirmation moves the
// cursor on its own, exactly as a change from the stream does: the same
// grace period applies.
func TestReconnectSnapshotThatMovesTheSelectionStartsGrace(t *testing.T) {
	m, h := queueConsole(t) // c-1 selected
	snap := demoSnapshot()
	snap.Confirmations = snap.Confirmations[1:] // c-1 was decided while we were away
	snap.Seq = 30
	now := t0.Add(5 * time.Second) // the operator is not typing
	setClock(m, now)
	m.Update(snapshotMsg{snap: snap})
	shown := m.queue.table.Selected()
	if shown == "" || shown == "c-1" {
		t.Fatalf("after the snapshot the selection is %q, want the confirmation that slid up", shown)
	}
	press(t, m, "a")
	if len(h.decisions) != 0 {
		t.Fatalf("an approve pressed at once after the snapshot moved the cursor was sent: %+v", h.decisions)
	}
	setClock(m, now.Add(m.opts.Grace))
	press(t, m, "a")
	if len(h.decisions) != 1 || h.decisions[0].id != shown || !h.decisions[0].d.Approve {
		t.Fatalf("after the grace period a should approve the shown %s: %+v", shown, h.decisions)
	}
}

// A snapshot that brings a confirmation for the operator while they type
// pauses keys too, as a streamed one does.
func TestReconnectSnapshotArrivalWhileTypingStartsGrace(t *testing.T) {
	m, h := queueConsole(t)
	press(t, m, "j", "k") // typing at t0; the selection stays on c-1
	snap := demoSnapshot()
	snap.Confirmations = append(snap.Confirmations, pendingFor("c-9", "human:henry").Confirmation)
	setClock(m, t0.Add(300*time.Millisecond))
	m.Update(snapshotMsg{snap: snap})
	press(t, m, "a")
	if len(h.decisions) != 0 {
		t.Fatalf("a pressed while a snapshot brought a new confirmation was sent: %+v", h.decisions)
	}
}
