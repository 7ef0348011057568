package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

func TestViewSwitching(t *testing.T) {
	m := console(t, &hubDouble{snap: demoSnapshot()}, 80, 24)
	steps := []struct {
		key  string
		want viewID
	}{
		{"tab", viewQueue}, {"tab", viewWizard}, {"tab", viewMatrix}, {"tab", viewInbox}, {"tab", viewPresence},
		{"shift+tab", viewInbox}, {"5", viewInbox}, {"2", viewQueue}, {"1", viewPresence}, {"4", viewMatrix}, {"3", viewWizard},
	}
	for _, s := range steps {
		press(t, m, s.key)
		if m.view != s.want {
			t.Fatalf("after %q the view is %s, want %s", s.key, viewTitles[m.view], viewTitles[s.want])
		}
	}
}

func TestQuitKeys(t *testing.T) {
	for _, k := range []string{"q", "ctrl+c"} {
		m := console(t, &hubDouble{snap: demoSnapshot()}, 80, 24)
		_, cmd := m.Update(keyMsg(k))
		if cmd == nil {
			t.Fatalf("%s returned no command", k)
		}
		if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Errorf("%s did not quit", k)
		}
	}
}

func TestHelpToggle(t *testing.T) {
	m := console(t, &hubDouble{snap: demoSnapshot()}, 120, 40)
	short := m.footerHeight()
	press(t, m, "?")
	if m.footerHeight() <= short || !strings.Contains(plain(m), "reverse sort") {
		t.Fatalf("? did not show the full help:\n%s", plain(m))
	}
	press(t, m, "?")
	if m.footerHeight() != short {
		t.Error("? again did not return to the short help")
	}
}

func TestFilterAndJump(t *testing.T) {
	m := console(t, &hubDouble{snap: demoSnapshot()}, 80, 24)
	press(t, m, "/")
	typeText(t, m, "core")
	if got := m.presence.table.Len(); got != 2 {
		t.Fatalf("filter core shows %d rows, want 2", got)
	}
	press(t, m, "enter")
	if m.prompt != promptNone || m.presence.table.Filter() != "core" {
		t.Fatalf("enter should keep the filter and close the prompt: prompt %d filter %q", m.prompt, m.presence.table.Filter())
	}
	press(t, m, "esc")
	if m.presence.table.Len() != 5 {
		t.Fatal("esc did not clear the filter")
	}
	press(t, m, "/")
	typeText(t, m, "zz")
	press(t, m, "esc")
	if m.presence.table.Filter() != "" || m.prompt != promptNone {
		t.Fatal("esc in the filter prompt should clear the filter")
	}
	press(t, m, ":")
	typeText(t, m, "porrima")
	press(t, m, "enter")
	if got := m.presence.table.Selected(); got != "p3" {
		t.Fatalf(": porrima selected %q, want p3 (work/core/lead)", got)
	}
	press(t, m, ":")
	typeText(t, m, "work/core/deputy")
	press(t, m, "enter")
	if got := m.presence.table.Selected(); got != "p4" {
		t.Fatalf(": work/core/deputy selected %q, want p4", got)
	}
	press(t, m, "4", ":") // from the matrix, a jump lands in presence
	typeText(t, m, "spica")
	press(t, m, "enter")
	if m.view != viewPresence || m.presence.table.Selected() != "p1" {
		t.Fatalf(": spica from the matrix: view %s, selected %q", viewTitles[m.view], m.presence.table.Selected())
	}
	press(t, m, ":")
	typeText(t, m, "nobody")
	press(t, m, "enter")
	if !strings.Contains(plain(m), "no match for nobody") {
		t.Error("a failed jump should say so")
	}
}

func TestMovesSortAndDetail(t *testing.T) {
	m := console(t, &hubDouble{snap: demoSnapshot()}, 80, 24)
	tb := m.presence.table
	press(t, m, "j", "down")
	if tb.Selected() != "p2" {
		t.Fatalf("j, down selected %q, want p2", tb.Selected())
	}
	press(t, m, "k", "up")
	if tb.Selected() != "p5" {
		t.Fatalf("k, up selected %q, want p5", tb.Selected())
	}
	press(t, m, "G")
	if tb.Selected() != "p3" {
		t.Fatalf("G selected %q, want the last row p3", tb.Selected())
	}
	press(t, m, "g")
	if tb.Selected() != "p5" {
		t.Fatalf("g selected %q, want p5", tb.Selected())
	}
	press(t, m, "s") // name
	if col, _ := tb.Sort(); col != pcName || tb.Selected() != "p5" {
		t.Fatalf("s: sort column %d, want NAME; selection %q must stay p5", col, tb.Selected())
	}
	press(t, m, "S")
	if _, desc := tb.Sort(); !desc {
		t.Fatal("S did not reverse the sort")
	}
	press(t, m, "enter")
	if !m.presence.pane.open || !strings.Contains(plain(m), "name         Heze (generation 3)") {
		t.Fatalf("enter did not open the detail pane:\n%s", plain(m))
	}
	press(t, m, "esc")
	if m.presence.pane.open {
		t.Error("esc did not close the detail pane")
	}
}

func TestLogsNeverReachTheScreen(t *testing.T) {
	var buf strings.Builder
	h := &hubDouble{snap: demoSnapshot()}
	m := console(t, h, 80, 24)
	m.log = newTestLogger(&buf)
	press(t, m, "2")
	deliberately(t, m, "a")
	if !strings.Contains(buf.String(), "decide") {
		t.Fatalf("the decision was not logged: %q", buf.String())
	}
	if strings.Contains(plain(m), "level=") {
		t.Error("a log line reached the screen")
	}
}

func TestReconnectAfterStreamEnds(t *testing.T) {
	m := console(t, &hubDouble{snap: demoSnapshot()}, 80, 24)
	_, cmd := m.Update(batchMsg{ended: true, at: t0})
	if m.conn != Disconnected || cmd == nil {
		t.Fatalf("an ended stream should show disconnected and schedule a reconnect (conn %s)", m.conn)
	}
	if !strings.Contains(plain(m), "hub ○ disconnected") {
		t.Errorf("the status bar does not show the disconnection:\n%s", plain(m))
	}
	m.Update(reconnectMsg{})
	m.Update(snapshotMsg{snap: demoSnapshot()})
	m.Update(subscribedMsg{})
	if m.conn != Connected {
		t.Error("after a new snapshot and subscription the console should be connected")
	}
}

func TestBatchesAreDrainedOncePerTick(t *testing.T) {
	f := &feed{}
	ch := make(chan Batch, 3)
	for i := range 3 {
		ch <- Batch{Changes: []Change{{Seq: uint64(11 + i), Kind: PersonaChanged, Persona: Persona{ID: "x"}}}}
	}
	close(ch)
	f.pump(ch)
	msg := tick(time.Millisecond, f)().(batchMsg)
	if len(msg.changes) != 3 || !msg.ended {
		t.Fatalf("one tick should carry all 3 changes and the end of the stream, got %d, ended %v", len(msg.changes), msg.ended)
	}
	if again := tick(time.Millisecond, f)().(batchMsg); len(again.changes) != 0 || again.ended {
		t.Error("a drained feed should be empty")
	}
}
