package ui

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/ui/golden"
)

// answerConsole is the demo inbox with its card h-3 (approve, reject)
// selected.
func answerConsole(t testing.TB, w, h int) (*Model, *inboxDouble) {
	t.Helper()
	m, d := inboxConsole(t, w, h)
	m.inbox.table.Select("h-3")
	return m, d
}

// TestInboxAnswerCardByKeys: the answer key opens a dialog of the card's
// actions with none chosen; the movement keys choose, and only the confirm
// key, alone, sends the chosen action — from a command, never from Update
// — and the status line says what was answered.
func TestInboxAnswerCardByKeys(t *testing.T) {
	m, d := answerConsole(t, 80, 24)
	deliberately(t, m, "c")
	if m.answer == nil {
		t.Fatalf("c on a card did not open its dialog:\n%s", plain(m))
	}
	for _, s := range []string{"Answer card #3?", "root/secretary (Spica) asks:", "Publish v1.2.0",
		"Smoke tests passed", "1  approve", "2  reject", "none chosen yet"} {
		if !strings.Contains(plain(m), s) {
			t.Fatalf("the dialog lacks %q:\n%s", s, plain(m))
		}
	}
	deliberately(t, m, "y") // nothing chosen: nothing sent, the dialog stays
	if m.answer == nil || !strings.Contains(plain(m), "no action chosen") {
		t.Fatalf("y with no action chosen closed the dialog or said nothing:\n%s", plain(m))
	}
	press(t, m, "j", "j") // approve, then reject
	if !strings.Contains(plain(m), "› 2  reject") || !strings.Contains(plain(m), "reject goes to root/secretary") {
		t.Fatalf("j j did not choose reject:\n%s", plain(m))
	}
	advance(m, m.opts.Arming)
	_, cmd := m.Update(keyMsg("y"))
	if cmd != nil || len(d.actions()) != 0 || m.answer != nil {
		t.Fatalf("y sent at once or left the dialog open (cmd %v, calls %v)", cmd != nil, d.actions())
	}
	advance(m, m.opts.Settle)
	_, cmd = m.Update(nudge{})
	if cmd == nil || len(d.actions()) != 0 {
		t.Fatalf("the settled answer is not a command (cmd %v, calls %v)", cmd != nil, d.actions())
	}
	runCmd(m, cmd)
	if got := strings.Join(d.actions(), "|"); got != "answer h-3 reject" {
		t.Fatalf("inbox calls %q, want the one answer h-3 reject", got)
	}
	if !strings.Contains(plain(m), "answered card #3 with reject") {
		t.Fatalf("the status line does not say what was answered:\n%s", plain(m))
	}
}

// The answer key says why where there is nothing to answer, and opens no
// dialog: a file, the operator's own reply, a card without actions, a card
// answered already, a confirmation.
func TestInboxAnswerWhereNothingApplies(t *testing.T) {
	m, d := answerConsole(t, 120, 40)
	bare := InboxItem{ID: "h-7", Thread: "h-7", Persona: "root/secretary", Name: "Spica", Kind: ItemCard, Title: "FYI", At: t0}
	done := InboxItem{ID: "h-8", Thread: "h-8", Persona: "root/secretary", Name: "Spica", Kind: ItemCard, Title: "Ship?",
		Actions: []string{"ship", "hold"}, Answer: &CardAnswer{Action: "hold", By: "human:henry", At: t0.Add(-2 * time.Minute)}, At: t0}
	m.Update(batchMsg{changes: []Change{{Seq: 11, Kind: InboxItemChanged, Item: bare}, {Seq: 12, Kind: InboxItemChanged, Item: done}}})
	for _, c := range []struct{ id, want string }{
		{"h-5", "nothing to answer: #5 is a file, not a card (r replies)"},
		{"h-2", "nothing to answer: #2 is your own reply"},
		{"h-7", "nothing to answer: card #7 offers no actions"},
		{"h-8", "card #8 is answered already: hold (by human:henry, 2m ago); an answer stands"},
		{"c-2", "nothing to answer: a confirmation: a approves, d denies"},
	} {
		m.inbox.table.Select(c.id)
		deliberately(t, m, "c")
		if m.answer != nil || !strings.Contains(plain(m), c.want) {
			t.Fatalf("c on %s: dialog open %v, want the note %q:\n%s", c.id, m.answer != nil, c.want, plain(m))
		}
	}
	if !strings.Contains(plain(m), "answered") {
		t.Fatalf("the answered card's state is not shown:\n%s", plain(m))
	}
	if acts := d.actions(); strings.Contains(strings.Join(acts, "|"), "answer") {
		t.Fatalf("sent although nothing applied: %v", acts)
	}
}

// An answer is a decision: the key that opens the dialog and the confirm
// key each stand alone, any other key cancels, and a key during the settle
// time drops the answer. "cool, yes" typed into the inbox answers nothing.
func TestInboxAnswerNeedsDeliberateKeys(t *testing.T) {
	m, d := answerConsole(t, 80, 24)
	press(t, m, "j") // a key just before: c does not stand alone
	m.inbox.table.Select("h-3")
	press(t, m, "c")
	if m.answer != nil || !strings.Contains(plain(m), "typing: nothing was opened") {
		t.Fatalf("c within typing opened the dialog:\n%s", plain(m))
	}
	deliberately(t, m, "c")
	press(t, m, "x") // any other key cancels
	if m.answer != nil || !strings.Contains(plain(m), "answer to card #3 cancelled: nothing was sent") {
		t.Fatalf("x did not cancel the dialog:\n%s", plain(m))
	}
	deliberately(t, m, "c")
	press(t, m, "j", "y") // y right after j: typing
	if m.answer != nil || !strings.Contains(plain(m), "typing: nothing was answered") {
		t.Fatalf("y within typing did not drop the answer:\n%s", plain(m))
	}
	deliberately(t, m, "c", "j")
	advance(m, m.opts.Arming)
	press(t, m, "y")
	press(t, m, "e") // a key within the settle time: the y was typing
	settled(t, m)
	if !strings.Contains(plain(m), "typing: nothing was answered (#3 with approve") {
		t.Fatalf("a key after y did not drop the answer:\n%s", plain(m))
	}
	if acts := d.actions(); len(acts) != 0 {
		t.Fatalf("typing answered a card: %v", acts)
	}
}

// The hub's refusal is named in the status line; an answer that came
// from elsewhere while the dialog was open closes it, sending nothing.
func TestInboxAnswerRefusedOrAnsweredElsewhere(t *testing.T) {
	m, d := answerConsole(t, 80, 24)
	d.answerErr = errors.New(`h-3: the card is answered already; its answer stands ("approve")`)
	deliberately(t, m, "c", "j", "y")
	if got := plain(m); !strings.Contains(got, `card #3 not answered with approve: h-3: the card is answered already`) {
		t.Fatalf("the hub's refusal is not in the status line:\n%s", got)
	}
	m2, d2 := answerConsole(t, 80, 24)
	deliberately(t, m2, "c", "j")
	card, _ := m2.inbox.table.Get("h-3")
	elsewhere := card.InboxItem
	elsewhere.Answer = &CardAnswer{Action: "reject", By: "human:henry", At: t0}
	m2.Update(batchMsg{changes: []Change{{Seq: 11, Kind: InboxItemChanged, Item: elsewhere}}})
	if m2.answer != nil || !strings.Contains(plain(m2), "card #3 was answered elsewhere: reject") {
		t.Fatalf("an answer from elsewhere did not close the dialog:\n%s", plain(m2))
	}
	deliberately(t, m2, "y")
	if acts := d2.actions(); len(acts) != 0 {
		t.Fatalf("sent after the card was answered elsewhere: %v", acts)
	}
}

// A persona wrote the card's actions: the dialog draws them cleaned.
func TestInboxAnswerDialogSanitized(t *testing.T) {
	m, _ := answerConsole(t, 80, 24)
	evil := InboxItem{ID: "h-9", Thread: "h-9", Persona: "root/secretary", Name: "Spica", Kind: ItemCard, Title: "t\x1b[2J",
		Text: "x\x1b]52;c;ZXZpbA==\a", Actions: []string{"ok\x1b]0;pwned\a", "\x9b31mno"}, At: t0}
	m.Update(batchMsg{changes: []Change{{Seq: 11, Kind: InboxItemChanged, Item: evil}}})
	m.inbox.table.Select("h-9")
	deliberately(t, m, "c")
	s := m.Render()
	if m.answer == nil || strings.Contains(s, "\a") || strings.Contains(s, "\x9b") || strings.Contains(s, "\x1b]") || strings.Contains(s, "\x1b[2J") {
		t.Fatalf("the dialog is closed or draws persona text unsanitized:\n%q", s)
	}
}

// TestGoldenInboxAnswer pins the dialog, an action chosen, at both sizes.
func TestGoldenInboxAnswer(t *testing.T) {
	for _, size := range golden.Sizes {
		w, h := size[0], size[1]
		name := fmt.Sprintf("inbox-answer-%dx%d", w, h)
		t.Run(name, func(t *testing.T) {
			m, _ := answerConsole(t, w, h)
			deliberately(t, m, "c", "j")
			got := plain(m)
			golden.Shape(t, name, got, w, h)
			golden.Check(t, name, got)
		})
	}
}
