package ui

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// answerDialog answers a card of the inbox, deliberately. A card's actions
// are a persona's question and its answer stands (the hub records one, and
// the persona acts on it), so the answer key opens this dialog instead of
// sending: it shows the card — who asks, its title and text — and its
// actions, none chosen; the movement keys choose one, and the confirm key
// sends it, standing alone like a decision key. Any other key cancels. It
// holds a copy of the card, cleaned where it entered the model.
type answerDialog struct {
	it InboxItem
	// choice indexes it.Actions; -1 until the operator chooses.
	choice int
}

// openAnswerDialog is the answer key on the selected item: a card with
// actions and no answer opens the dialog when the key stood alone;
// anything else says why there is nothing to answer.
func (m *Model) openAnswerDialog() tea.Cmd {
	it, ok := m.inbox.selected()
	if why := m.unanswerable(it, ok); why != "" {
		m.setNote(noteWarn, why, 5*time.Second)
		return nil
	}
	if !m.standing.alone {
		m.setNote(noteWarn, "typing: nothing was opened ("+m.aloneRule()+")", 5*time.Second)
		return nil
	}
	m.answer = &answerDialog{it: *it, choice: -1}
	return nil
}

// unanswerable says why the selected item (it, if ok) takes no answer, or
// "" when it does.
func (m *Model) unanswerable(it *InboxItem, ok bool) string {
	switch {
	case m.inboxClient == nil:
		return "nothing to answer: no inbox on this hub"
	case !ok:
		return "nothing to answer: " + m.inboxNoItem()
	}
	n := "#" + strconv.FormatInt(itemSeq(it.ID), 10)
	switch {
	case it.FromHuman:
		return "nothing to answer: " + n + " is your own reply"
	case it.Kind != ItemCard:
		return "nothing to answer: " + n + " is a " + it.Kind + ", not a card (" + keyName(m.keys.Reply.Keys()) + " replies)"
	case len(it.Actions) == 0:
		return "nothing to answer: card " + n + " offers no actions (" + keyName(m.keys.Reply.Keys()) + " replies)"
	case it.Answer != nil:
		return "card " + n + " is answered already: " + answeredBy(it.Answer, m.now()) + "; an answer stands"
	}
	return ""
}

// answeredBy is an answer in the words of the status line and the pane.
func answeredBy(a *CardAnswer, now time.Time) string {
	return a.Action + " (by " + a.By + ", " + since(now, a.At) + " ago)"
}

// answerKey is a key while the dialog is open: the movement keys choose
// an action, the confirm key holds the chosen answer (sent after the settle
// time with no key), any other key cancels.
func (m *Model) answerKey(msg tea.KeyPressMsg) tea.Cmd {
	if msg.String() == "ctrl+c" {
		return tea.Quit
	}
	d := m.answer
	last := len(d.it.Actions) - 1
	switch {
	case key.Matches(msg, m.keys.Down):
		d.choice = min(last, d.choice+1)
		return nil
	case key.Matches(msg, m.keys.Up):
		if d.choice < 0 {
			d.choice = last
		} else {
			d.choice = max(0, d.choice-1)
		}
		return nil
	case key.Matches(msg, m.keys.Confirm) && d.choice < 0:
		m.setNote(noteWarn, "no action chosen: "+keyName(m.keys.Down.Keys())+"/"+keyName(m.keys.Up.Keys())+
			" chooses one, then "+keyName(m.keys.Confirm.Keys())+" sends it", 4*time.Second)
		return nil
	}
	m.answer = nil
	n := "#" + strconv.FormatInt(itemSeq(d.it.ID), 10)
	switch {
	case !key.Matches(msg, m.keys.Confirm):
		m.setNote(noteInfo, "answer to card "+n+" cancelled: nothing was sent", 3*time.Second)
	case !m.standing.alone:
		m.setNote(noteWarn, "typing: nothing was answered ("+m.aloneRule()+")", 5*time.Second)
	default:
		action := d.it.Actions[d.choice]
		m.standing.pending = &pendingDecision{answer: d.it.ID, action: action, at: m.now()}
		m.setNote(noteInfo, "answer "+n+" with "+action+" in "+m.opts.Settle.String()+" unless a key comes", 2*time.Second)
	}
	return nil
}

// settleAnswer sends an answer that waited out the settle time, when its
// card is still the inbox's selection on screen and no other answer came
// meanwhile.
func (m *Model) settleAnswer(p *pendingDecision) tea.Cmd {
	n := "#" + strconv.FormatInt(itemSeq(p.answer), 10)
	it, ok := m.inbox.selected()
	switch {
	case !ok || it.ID != p.answer || m.view != viewInbox:
		m.setNote(noteWarn, "the selection moved: nothing was answered", 4*time.Second)
		return nil
	case it.Answer != nil && it.Answer.Action != p.action:
		m.setNote(noteWarn, "card "+n+" was answered meanwhile: "+answeredBy(it.Answer, m.now())+"; nothing was sent", 5*time.Second)
		return nil
	}
	id, action, persona := p.answer, p.action, it.Persona
	return m.inboxCall("answer", func(ctx context.Context, ic InboxClient) (string, error) {
		if err := ic.AnswerInbox(ctx, id, action); err != nil {
			return "", fmt.Errorf("card %s not answered with %s: %w", n, action, err)
		}
		return "answered card " + n + " with " + action + "; " + persona + " receives it as a message", nil
	})
}

// closeAnswerIfChanged closes the dialog when its card left the view or
// was answered elsewhere: the operator answers exactly the card shown.
func (m *Model) closeAnswerIfChanged() {
	if m.answer == nil {
		return
	}
	id := m.answer.it.ID
	n := "#" + strconv.FormatInt(itemSeq(id), 10)
	r, ok := m.inbox.table.Get(id)
	switch {
	case !ok:
		m.setNote(noteWarn, "card "+n+" left the inbox view; nothing was sent", 5*time.Second)
	case r.Answer != nil:
		m.setNote(noteWarn, "card "+n+" was answered elsewhere: "+answeredBy(r.Answer, m.now())+"; nothing was sent", 5*time.Second)
	default:
		return
	}
	m.answer = nil
}

// answerHelp is the footer while the dialog is open.
func (m *Model) answerHelp() helpKeys {
	confirm := m.keys.Confirm
	b := []key.Binding{
		pair("choose", m.keys.Down, m.keys.Up),
		key.NewBinding(key.WithKeys(confirm.Keys()...), key.WithHelp(confirm.Help().Key, "send the chosen answer")),
		key.NewBinding(key.WithKeys("any"), key.WithHelp("any other key", "cancels (nothing is sent)")),
	}
	return helpKeys{short: b, full: [][]key.Binding{b}}
}

// answerTextLines is the most of a card's text the dialog shows; the
// detail pane beside it shows the card whole.
const answerTextLines = 6

// view renders the dialog box, outer width w, at most height lines. The
// actions and the keys are always shown; the card's text gives way first.
func (d *answerDialog) view(m *Model, w, height int) string {
	st := m.styles
	inner := max(20, w-4) // border and padding
	n := "#" + strconv.FormatInt(itemSeq(d.it.ID), 10)
	head := []string{st.Title.Render("Answer card " + n + "?"), ""}
	head = append(head, wrapWords(d.it.Persona+" ("+d.it.Name+") asks:", inner)...)
	if d.it.Title != "" {
		head = append(head, wrapWords(st.Strong.Render(d.it.Title), inner)...)
	}
	var text []string
	if d.it.Text != "" {
		for _, l := range strings.Split(d.it.Text, "\n") {
			text = append(text, wrapWords(l, inner)...)
		}
	}
	var acts []string
	for i, a := range d.it.Actions {
		line := "  " + strconv.Itoa(i+1) + "  " + a
		if i == d.choice {
			line = st.Selected.Render("› " + strconv.Itoa(i+1) + "  " + a)
		}
		acts = append(acts, wrapWords(line, inner)...)
	}
	chosen := "none chosen yet"
	if d.choice >= 0 {
		chosen = st.Strong.Render(d.it.Actions[d.choice]) + " goes to " + d.it.Persona + " as a message; the answer stands"
	}
	foot := append([]string{""}, wrapWords(chosen, inner)...)
	foot = append(foot, wrapWords(keyName(m.keys.Down.Keys())+"/"+keyName(m.keys.Up.Keys())+" choose · "+
		st.Strong.Render(keyName(m.keys.Confirm.Keys()))+" send · any other key cancels (nothing is sent)", inner)...)
	room := max(1, height-2-len(head)-len(acts)-len(foot)-1) // border, and the blank before the actions
	if keep := min(room, answerTextLines); len(text) > keep {
		more := len(text) - keep + 1
		text = append(text[:keep-1:keep-1], st.Dim.Render("… "+strconv.Itoa(more)+" more lines in the detail pane"))
	}
	lines := append(append(append(append(head, text...), ""), acts...), foot...)
	return lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(0, 1).Width(w).Render(strings.Join(lines, "\n"))
}
