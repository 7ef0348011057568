package ui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/ui/golden"
	"github.com/virgo-hub/virgo-tui/internal/ui/styles"
)

// inboxDouble is a hub double with the human channel: it records every
// inbox call; the console must make them only from commands.
type inboxDouble struct {
	*hubDouble
	mu    sync.Mutex
	state InboxState
	acts  []string
	// answerErr is what AnswerInbox returns, as the hub would refuse.
	answerErr error
}

func (d *inboxDouble) act(s string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.acts = append(d.acts, s)
}

func (d *inboxDouble) actions() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.acts...)
}

func (d *inboxDouble) Inbox(context.Context, int) (InboxState, error) { return d.state, nil }
func (d *inboxDouble) InboxStatus(context.Context) (InboxStatus, error) {
	d.act("status")
	return d.state.InboxStatus, nil
}
func (d *inboxDouble) ReplyInbox(_ context.Context, id, text string) error {
	d.act("reply " + id + " " + text)
	return nil
}
func (d *inboxDouble) ReactInbox(_ context.Context, id, reaction string) (ReactOutcome, error) {
	d.act("react " + id + " " + reaction)
	return ReactOutcome{Applied: true}, nil
}
func (d *inboxDouble) AckInbox(_ context.Context, id string) error {
	d.act("ack " + id)
	return nil
}
func (d *inboxDouble) TickInbox(_ context.Context, id string, index int, done bool) error {
	d.act(fmt.Sprintf("tick %s %d %v", id, index, done))
	return nil
}
func (d *inboxDouble) AnswerInbox(_ context.Context, id, action string) error {
	d.act("answer " + id + " " + action)
	return d.answerErr
}
func (d *inboxDouble) SaveInboxFile(_ context.Context, id, path string) (string, error) {
	d.act("save " + id + " " + path)
	return path, nil
}

// demoInbox is a secretary's message with the operator's reply, a card, a
// todo card and a file, and a lead typing.
func demoInbox() InboxState {
	from := func(id, thread, kind string, ago time.Duration) InboxItem {
		return InboxItem{ID: id, Thread: thread, Persona: "root/secretary", Name: "Spica", Generation: 1, Kind: kind, At: t0.Add(-ago)}
	}
	msg := from("h-1", "h-1", ItemMessage, 30*time.Minute)
	msg.Text, msg.Acked = "The core release is ready.\nShall I publish it tonight?", true
	reply := from("h-2", "h-1", ItemMessage, 20*time.Minute)
	reply.FromHuman, reply.ReplyTo, reply.Text = true, "h-1", "Yes, after the smoke tests."
	card := from("h-3", "h-3", ItemCard, 5*time.Minute)
	card.Title, card.Text, card.Actions = "Publish v1.2.0", "Smoke tests passed on all three hosts.", []string{"approve", "reject"}
	todo := from("h-4", "h-4", ItemTodo, 3*time.Minute)
	todo.Title, todo.Todo = "Release checklist", []TodoLine{{Text: "tag v1.2.0", Done: true}, {Text: "publish notes"}}
	file := from("h-5", "h-5", ItemFile, time.Minute)
	file.Text, file.File = "the notes", &InboxFile{Name: "release-notes.md", Size: 2048,
		SHA256: "sha256:" + strings.Repeat("ab", 32), Path: "reports/release-notes.md"}
	return InboxState{Items: []InboxItem{msg, reply, card, todo, file},
		InboxStatus: InboxStatus{Unread: 3, Typing: []Typing{{ID: "p3", Persona: "work/core/lead", Thread: "h-3", Until: t0.Add(20 * time.Second)}}},
		Reactions:   []string{"ack", "approve", "reject"}}
}

// inboxConsole is a loaded console with the demo inbox, on the inbox view.
func inboxConsole(t testing.TB, w, h int) (*Model, *inboxDouble) {
	t.Helper()
	d := &inboxDouble{hubDouble: &hubDouble{snap: demoSnapshot()}, state: demoInbox()}
	m := console(t, d.hubDouble, w, h)
	m.inboxClient = d // console() built the model over the plain double
	m.Update(inboxLoadedMsg{state: d.state})
	press(t, m, "5")
	m.inbox.table.Select("h-5") // past the confirmations routed to the operator
	return m, d
}

// TestInboxActionsGoThroughCommands: every action is a command to the
// hub, never I/O in Update, and names the selected item.
func TestInboxActionsGoThroughCommands(t *testing.T) {
	m, d := inboxConsole(t, 80, 24)
	// newest thread first: h-5 (file), h-4 (todo), h-3 (card), h-1, h-2
	if got := m.inbox.table.Selected(); got != "h-5" {
		t.Fatalf("selected %s, want the newest thread h-5", got)
	}
	for _, k := range []string{"a", "f", "r", "+", "t"} { // Update alone sends nothing
		m.Update(keyMsg(k))
		m.Update(keyMsg("esc"))
	}
	if acts := d.actions(); len(acts) != 0 {
		t.Fatalf("Update made inbox calls itself: %v", acts)
	}
	// Each key that acts or opens a field stands alone, as an operator's
	// does (see TestInboxTypedSentenceActsOnNothing).
	deliberately(t, m, "a", "f") // ack h-5; save to the offered name
	press(t, m, "enter")
	press(t, m, "j")             // h-4
	deliberately(t, m, "t", "2") // tick line 2
	press(t, m, "enter")
	press(t, m, "j") // h-3
	deliberately(t, m, "+")
	typeText(t, m, "approve")
	press(t, m, "enter")
	press(t, m, "j") // h-1: reply; typed a's are text
	deliberately(t, m, "r")
	typeText(t, m, "a tonight")
	press(t, m, "enter")
	want := []string{"ack h-5", "save h-5 release-notes.md", "tick h-4 1 true", "react h-3 approve", "reply h-1 a tonight"}
	if got := d.actions(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("inbox calls:\n got %q\nwant %q", got, want)
	}
}

// A key that opens a field always opens it, even where the action does
// not apply; its enter then sends nothing.
func TestInboxFieldsOpenWhereNothingApplies(t *testing.T) {
	m, d := inboxConsole(t, 80, 24)
	press(t, m, "t") // h-5 is a file, not a todo card
	if m.prompt != promptTick || !strings.Contains(plain(m), "not a todo card") {
		t.Fatalf("t did not open its field with the reason:\n%s", plain(m))
	}
	typeText(t, m, "1")
	press(t, m, "enter")
	press(t, m, "G", "r") // h-2 is the operator's own reply
	typeText(t, m, "rad")
	press(t, m, "enter")
	press(t, m, "k") // h-1
	deliberately(t, m, "+")
	press(t, m, "enter") // a reaction must be in the catalogue; the field stays
	if m.prompt != promptReact {
		t.Fatalf("an empty reaction closed the field (prompt %d)", m.prompt)
	}
	press(t, m, "esc")
	if acts := d.actions(); len(acts) != 0 {
		t.Fatalf("sent although nothing applied: %v", acts)
	}
}

// Everything a persona wrote is cleaned before it is drawn; a live item
// from the stream shows, and a batch asks the unread count again.
func TestInboxLiveAndSanitized(t *testing.T) {
	m, d := inboxConsole(t, 120, 40)
	d.state.Typing = nil // the lead stops typing: the stream clears it, the status agrees
	evil := InboxItem{ID: "h-6", Thread: "h-6", Persona: "root/secretary", Name: "Spica\x1b]0;pwned\a", Kind: ItemCard,
		Title: "\x1b[2Jclear", Text: "line\x1b]52;c;ZXZpbA==\a\nsecond", Actions: []string{"\x9b31m"}, At: t0}
	_, cmd := m.Update(batchMsg{changes: []Change{{Seq: 11, Kind: InboxItemChanged, Item: evil},
		{Seq: 12, Kind: TypingChanged, Typing: Typing{ID: "p3"}}}})
	runCmd(m, cmd)
	s := m.Render()
	if strings.Contains(s, "\a") || strings.Contains(s, "\x9b") || strings.Contains(s, "\x1b]") || strings.Contains(s, "\x1b[2J") {
		t.Fatalf("persona text reached the screen unsanitized:\n%q", s)
	}
	if !strings.Contains(plain(m), "clear") || strings.Contains(plain(m), "work/core/lead is typing") {
		t.Fatalf("the live card or the cleared typing indicator is not shown:\n%s", plain(m))
	}
	if !strings.Contains(strings.Join(d.actions(), "|"), "status") {
		t.Fatal("a batch that changed the inbox did not ask for the unread count")
	}
}

// The inbox keeps at most inboxKeep items, dropping the oldest.
func TestInboxIsBounded(t *testing.T) {
	m, _ := inboxConsole(t, 80, 24)
	for i := range inboxKeep + 10 {
		id := fmt.Sprintf("h-%d", 100+i)
		m.inbox.upsert(InboxItem{ID: id, Thread: id, Persona: "root/secretary", Kind: ItemMessage, Text: "x"}, t0)
	}
	if n := m.inbox.table.Total() - len(m.inbox.confs); n != inboxKeep {
		t.Fatalf("held %d items, want %d", n, inboxKeep)
	}
	if _, ok := m.inbox.table.Get("h-1"); ok {
		t.Fatal("the oldest item was kept")
	}
}

// TestGoldenInbox pins the inbox view, its detail of a todo card and of a
// file, and its help, at both sizes.
func TestGoldenInbox(t *testing.T) {
	for _, size := range golden.Sizes {
		w, h := size[0], size[1]
		for _, c := range []struct {
			name string
			keys []string
		}{
			{"inbox", nil},
			{"inbox-todo", []string{"j"}},
			{"inbox-thread", []string{"G", "k"}},
			{"inbox-help", []string{"?"}},
			{"inbox-react", []string{"j", "j", "+"}},
		} {
			name := fmt.Sprintf("%s-%dx%d", c.name, w, h)
			t.Run(name, func(t *testing.T) {
				m, _ := inboxConsole(t, w, h)
				press(t, m, c.keys...)
				got := plain(m)
				golden.Shape(t, name, got, w, h)
				golden.Check(t, name, got)
			})
		}
	}
}

// Drawing the typing line changes nothing: an indicator past its time is
// not shown, and stays the view's until the indicators change.
func TestTypingLineIsARenderOnly(t *testing.T) {
	st := newStyles(styles.Default())
	v := newInboxView(st, newQueueView(st))
	v.setTyping(Typing{ID: "p1", Persona: "work/core/lead", Thread: "h-3", Until: t0.Add(time.Second)})
	if line := v.typingLine(t0); !strings.Contains(line, "work/core/lead is typing in #3") {
		t.Fatalf("typing line %q", line)
	}
	if line := v.typingLine(t0.Add(2 * time.Second)); !strings.Contains(line, "nobody is typing") {
		t.Fatalf("a lapsed indicator is shown: %q", line)
	}
	if len(v.typing) != 1 {
		t.Fatalf("drawing the line changed the indicators: %d left, want 1", len(v.typing))
	}
}
