package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// notifyConsole is a console on the presence view that calls the operator
// as n says; its ticks are short so a test can run the commands it returns.
func notifyConsole(t *testing.T, n Notify) *Model {
	return console(t, &hubDouble{snap: demoSnapshot()}, 80, 24, Options{Notify: n, Tick: time.Millisecond})
}

// written runs cmd and what it batches, and returns what they would write
// to the terminal raw (the bell, a desktop notification).
func written(cmd tea.Cmd) string {
	var b strings.Builder
	var run func(tea.Cmd)
	run = func(c tea.Cmd) {
		if c == nil {
			return
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			for _, c := range msg {
				run(c)
			}
		case tea.RawMsg:
			fmt.Fprint(&b, msg.Msg)
		}
	}
	run(cmd)
	return b.String()
}

// arrive delivers a new confirmation routed to auth and returns what the
// console wrote raw.
func arrive(m *Model, id, auth string) string {
	c := pendingFor(id, auth)
	c.Seq = m.seq + 1
	_, cmd := m.Update(batchMsg{changes: []Change{c}})
	return written(cmd)
}

// "When a confirmation routed to you arrives and
// the console is not focused on the queue, ring the terminal bell and set
// the terminal title to the pending count; an optional desktop
// notification through the terminal (OSC 9 / OSC 777) is enabled in the
// config. All three can be turned off."
func TestArrivalCallsTheOperatorAwayFromTheQueue(t *testing.T) {
	m := notifyConsole(t, Notify{Bell: true, Title: true, Desktop: DesktopOSC9})
	got := arrive(m, "c-9", "human:henry")
	want := "\a\x1b]9;virgo-tui: 3 confirmations for you; latest work/core/lead (W shows it)\a"
	if got != want {
		t.Fatalf("arrival on the presence view wrote %q, want %q", got, want)
	}
	if title := m.View().WindowTitle; title != "(3 pending; latest work/core/lead) virgo-tui demo" {
		t.Errorf("title %q, want the pending count first", title)
	}
}

// "Notifications that name what waits: the bell/title/OSC 9 text names the
// persona, the tool and the target, and one key jumps to it." The target
// is cut as the queue cuts it (its host kept), so a persona's long target
// cannot make the call unbounded.
func TestCallNamesWhatWaitsAndOneKeyShowsIt(t *testing.T) {
	m := notifyConsole(t, Notify{Title: true, Desktop: DesktopOSC9})
	c := pendingFor("c-9", "human:henry")
	c.Confirmation.Tool = "delete_file"
	c.Confirmation.Target = "external:https://files.example.org/" + strings.Repeat("deep/", 40) + "x1"
	c.Seq = m.seq + 1
	_, cmd := m.Update(batchMsg{changes: []Change{c}})
	want := "\x1b]9;virgo-tui: 3 confirmations for you; latest work/core/lead: delete_file " +
		"external:https://files.example.org…/deep/deep/x1 (W shows it)\a"
	if got := written(cmd); got != want {
		t.Fatalf("the call wrote %q, want %q", got, want)
	}
	if title := m.View().WindowTitle; !strings.HasPrefix(title, "(3 pending; latest work/core/lead: delete_file external:https://files.example.org…") {
		t.Errorf("title %q does not name what waits", title)
	}
	press(t, m, "W")
	if m.view != viewQueue || m.queue.table.Selected() != "c-9" {
		t.Fatalf("W: view %d, selected %q; want the queue on c-9", m.view, m.queue.table.Selected())
	}
	m.Update(batchMsg{changes: []Change{{Seq: m.seq + 1, Kind: ConfirmationDecided, ID: "c-9", DecidedBy: "human:ada", Outcome: "approved"}}})
	press(t, m, "1", "W")
	if m.view != viewQueue || m.queue.table.Selected() != "c-1" {
		t.Fatalf("W after c-9 was decided: view %d, selected %q; want the first still waiting for you, c-1", m.view, m.queue.table.Selected())
	}
	if title := m.View().WindowTitle; title != "(2 pending) virgo-tui demo" {
		t.Errorf("title %q names a confirmation no longer waiting", title)
	}
}

func TestOSC777Notification(t *testing.T) {
	m := notifyConsole(t, Notify{Desktop: DesktopOSC777})
	c := pendingFor("c-9", "human:henry")
	c.Confirmation.Requester = "work/x;y\x1b]0;pwned\x07"
	_, cmd := m.Update(batchMsg{changes: []Change{c}})
	got := written(cmd)
	want := "\x1b]777;notify;virgo-tui demo;3 confirmations for you; latest work/x,y\uFFFD]0,pwned\uFFFD (W shows it)\a"
	if got != want {
		t.Fatalf("OSC 777 wrote %q, want %q (no bell: it is off)", got, want)
	}
}

// Looking at the queue in a focused terminal, the operator sees the
// arrival: nothing rings. A terminal that reports losing focus rings again.
func TestNoCallWhileLookingAtTheQueue(t *testing.T) {
	m := notifyConsole(t, Notify{Bell: true, Title: true, Desktop: DesktopOSC9})
	press(t, m, "2")
	if got := arrive(m, "c-9", "human:henry"); got != "" {
		t.Fatalf("arrival while looking at the queue wrote %q", got)
	}
	m.Update(tea.BlurMsg{})
	if got := arrive(m, "c-10", "human:henry"); !strings.HasPrefix(got, "\a") {
		t.Fatalf("arrival in a blurred terminal wrote %q, want the bell", got)
	}
	m.Update(tea.FocusMsg{})
	advance(m, notifyEvery)
	if got := arrive(m, "c-11", "human:henry"); got != "" {
		t.Fatalf("arrival after focus came back wrote %q", got)
	}
}

func TestAllThreeCanBeTurnedOff(t *testing.T) {
	m := notifyConsole(t, Notify{Desktop: DesktopOff})
	if got := arrive(m, "c-9", "human:henry"); got != "" {
		t.Fatalf("with every call off an arrival wrote %q", got)
	}
	if title := m.View().WindowTitle; title != "virgo-tui demo" {
		t.Errorf("title %q with the title call off, want no count", title)
	}
}

// Only the operator's own confirmations call; a burst calls once.
func TestCallsAreForTheOperatorAndBounded(t *testing.T) {
	m := notifyConsole(t, Notify{Bell: true})
	if got := arrive(m, "c-9", "work/core/lead"); got != "" {
		t.Fatalf("a confirmation routed to a lead rang: %q", got)
	}
	if got := arrive(m, "c-10", "human:henry"); got != "\a" {
		t.Fatalf("the first arrival wrote %q, want the bell", got)
	}
	advance(m, notifyEvery-time.Millisecond)
	if got := arrive(m, "c-11", "human:henry"); got != "" {
		t.Fatalf("a second arrival within %s rang again: %q", notifyEvery, got)
	}
	advance(m, time.Millisecond)
	if got := arrive(m, "c-12", "human:henry"); got != "\a" {
		t.Fatalf("an arrival %s after the last call wrote %q, want the bell", notifyEvery, got)
	}
}

// A confirmation that came while the stream was down arrives with the
// reconnect snapshot: it calls too.
func TestReconnectSnapshotArrivalCalls(t *testing.T) {
	m := notifyConsole(t, Notify{Bell: true})
	snap := demoSnapshot()
	snap.Seq = 30
	snap.Confirmations = append(snap.Confirmations, pendingFor("c-9", "human:henry").Confirmation)
	_, cmd := m.Update(snapshotMsg{snap: snap})
	if got := written(cmd); got != "\a" {
		t.Fatalf("a reconnect snapshot with a new confirmation wrote %q, want the bell", got)
	}
}
