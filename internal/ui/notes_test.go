package ui

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// "The status line keeps the last few notes (a short history on
// ! or in a log view), so one note does not hide another."
func TestNoteHistory(t *testing.T) {
	m, h := queueConsole(t)
	press(t, m, "a")
	settled(t, m) // approved: c-1
	m.Update(batchMsg{changes: []Change{{Seq: 11, Kind: ConfirmationDecided, ID: "c-3", DecidedBy: "work/core/lead", Outcome: "denied"}}})
	s := plain(m)
	// four fresh notes: the approval settling, sending, approved, denied elsewhere
	if !strings.Contains(s, "denied, decided by work/core/lead: work/core") || !strings.Contains(s, "+3 notes (!) · ") {
		t.Fatalf("the status line should show the newest note and that one more is fresh:\n%s", s)
	}
	press(t, m, "!")
	s = plain(m)
	iDenied := strings.Index(s, "denied, decided by work/core/lead")
	iApproved := strings.Index(s, "approved: work/core/lead")
	if !m.notes.open || iDenied < 0 || iApproved < 0 || iDenied > iApproved {
		t.Fatalf("! should list both notes, newest first:\n%s", s)
	}
	if !strings.Contains(s, "recent notes, newest first") || strings.Contains(s, "REQUESTER") {
		t.Errorf("the history should cover the view:\n%s", s)
	}
	press(t, m, "a", "A", "d", "j", "enter") // the queue is covered: nothing acts on it
	if len(h.decisions) != 1 || m.prompt != promptNone || m.queue.pane.open {
		t.Fatalf("keys acted on the covered queue: %+v", h.decisions)
	}
	press(t, m, "esc")
	if m.notes.open || !strings.Contains(plain(m), "REQUESTER") {
		t.Fatal("esc should close the history")
	}
	press(t, m, "!", "!")
	if m.notes.open {
		t.Error("! again should close the history")
	}
	// Later, the notes have left the status line but not the history.
	advance(m, time.Minute)
	m.Update(batchMsg{})
	if s := plain(m); strings.Contains(s, "decided by") || strings.Contains(s, "notes (!)") {
		t.Errorf("stale notes stay on the status line:\n%s", s)
	}
	press(t, m, "!")
	if s := plain(m); !strings.Contains(s, "1m") || !strings.Contains(s, "approved: work/core/lead") {
		t.Errorf("the history should keep old notes with their age:\n%s", s)
	}
}

// The history is bounded: nothing grows without limit.
func TestNoteHistoryIsBounded(t *testing.T) {
	m, _ := queueConsole(t)
	for i := range 3 * noteHistory {
		m.setNote(noteInfo, "note "+strconv.Itoa(i), time.Second)
	}
	if n := len(m.notes.notes); n != noteHistory {
		t.Fatalf("history holds %d notes, want %d", n, noteHistory)
	}
	if first := m.notes.notes[0].text; first != "note "+strconv.Itoa(2*noteHistory) {
		t.Errorf("the oldest kept note is %q; the history should keep the newest", first)
	}
}

// "An error names the persona's address, not an internal id."
func TestErrorsNameAddressesNotIDs(t *testing.T) {
	snap := demoSnapshot()
	id := "3fa94c2e0b1d7a65"
	snap.Personas[3].ID = id // work/core/deputy, generation 1
	h := &hubDouble{snap: snap, decideErr: errors.New("activate " + id + ": seat is taken: work/core/deputy is held by Zavijava")}
	m := console(t, h, 120, 40)
	press(t, m, "2", "j")
	deliberately(t, m, "a")
	s := plain(m)
	if strings.Contains(s, id) || !strings.Contains(s, "activate work/core/deputy (generation 1): seat is taken") {
		t.Fatalf("the error should name the address, not %s:\n%s", id, s)
	}
	for _, kept := range []string{"x" + id, id + "9", "personas/" + id + "/CAPABILITY-STAMP.json", "sha256:" + id} {
		if got := m.withAddresses("at " + kept + "."); got != "at "+kept+"." {
			t.Errorf("an id inside a word, hash or path was replaced: %q", got)
		}
	}
	if got := m.withAddresses("retire " + id + ", then " + id); got != "retire work/core/deputy (generation 1), then work/core/deputy (generation 1)" {
		t.Errorf("two standalone ids: %q", got)
	}
}

// A row the note history covered was not on screen: closing the history
// arms it again (the arming rule), while widening the detail pane, which
// shows that same row whole, keeps it armed.
func TestCoveredRowIsReArmed(t *testing.T) {
	m, h := queueConsole(t) // c-1, armed
	press(t, m, "!", "!", "a")
	if len(h.decisions) != 0 || !strings.Contains(plain(m), "look first") {
		t.Fatalf("a decided a row the note history had covered: %+v", h.decisions)
	}
	look(m)
	press(t, m, "z")
	deliberately(t, m, "a")
	if len(h.decisions) != 1 || h.decisions[0].id != "c-1" {
		t.Fatalf("a on the widened pane of an armed row: %+v, want c-1 approved", h.decisions)
	}
}
