package ui

import (
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// severalDialog approves several confirmations at once, deliberately: the
// operator marks rows (space), opens it with the approve_marked key, reads
// every marked confirmation's bound operation in full (operationFields, the
// preview's rendering), and approves them all with the confirm key, which
// stands alone like any decision key. Any other key but the pane's scroll
// keys cancels. It holds copies of the marked confirmations.
type severalDialog struct {
	cs  []Confirmation
	top int
}

// toggleMark marks or unmarks the selected confirmation; a mark never
// decides. Only a confirmation the operator may decide can be marked.
func (m *Model) toggleMark() {
	c, ok := m.actionableSelected()
	if !ok {
		return
	}
	v := m.queue
	if v.marks[c.ID] {
		delete(v.marks, c.ID)
	} else {
		v.marks[c.ID] = true
	}
	m.setNote(noteInfo, strconv.Itoa(len(v.marks))+" marked: "+keyName(m.keys.ApproveMarked.Keys())+
		" approves them after a dialog that lists each", 3*time.Second)
}

// marked are the marked confirmations still pending, in list order; marks
// of rows that left the queue are forgotten.
func (v *queueView) marked() []Confirmation {
	var cs []Confirmation
	for _, r := range v.table.sorted {
		if !r.gone && v.marks[r.id] {
			cs = append(cs, *r.val)
		}
	}
	for id := range v.marks {
		if _, ok := v.table.Get(id); !ok {
			delete(v.marks, id)
		}
	}
	return cs
}

// openSeveralDialog is the approve_marked key: it opens the dialog over the
// marked confirmations when the key stood alone.
func (m *Model) openSeveralDialog() tea.Cmd {
	cs := m.queue.marked()
	switch {
	case len(cs) == 0:
		m.setNote(noteInfo, "nothing marked: "+keyName(m.keys.Mark.Keys())+" marks a confirmation to approve with others", 4*time.Second)
	case !m.standing.alone:
		m.setNote(noteWarn, "typing: nothing was opened ("+m.aloneRule()+")", 5*time.Second)
	default:
		m.several = &severalDialog{cs: cs}
	}
	return nil
}

// severalKey is a key while the dialog is open: the pane keys scroll it,
// the confirm key holds the approval of every listed confirmation (sent
// after the settle time with no key), any other key cancels.
func (m *Model) severalKey(msg tea.KeyPressMsg) tea.Cmd {
	if msg.String() == "ctrl+c" {
		return tea.Quit
	}
	d := m.several
	switch {
	case key.Matches(msg, m.keys.PaneDown):
		d.top += max(1, m.bodyHeight()/2)
		return nil
	case key.Matches(msg, m.keys.PaneUp):
		d.top = max(0, d.top-max(1, m.bodyHeight()/2))
		return nil
	}
	m.several = nil
	switch {
	case !key.Matches(msg, m.keys.Confirm):
		m.setNote(noteInfo, "approve several cancelled: nothing was decided", 3*time.Second)
	case !m.standing.alone:
		m.setNote(noteWarn, "typing: nothing was approved ("+m.aloneRule()+")", 5*time.Second)
	default:
		m.standing.pending = &pendingDecision{batch: d.cs, d: Decision{Approve: true}, at: m.now()}
		m.setNote(noteInfo, "approve "+strconv.Itoa(len(d.cs))+" in "+m.opts.Settle.String()+" unless a key comes", 2*time.Second)
	}
	return nil
}

// settleSeveral sends the held approval of several confirmations: each
// still pending and not being sent is approved; the others are named.
func (m *Model) settleSeveral(p *pendingDecision) tea.Cmd {
	var cmds []tea.Cmd
	var gone []string
	for i := range p.batch {
		c, ok := m.queue.table.Get(p.batch[i].ID)
		if !ok || m.isDeciding(c.ID) {
			gone = append(gone, p.batch[i].Requester)
			continue
		}
		delete(m.queue.marks, c.ID)
		cmds = append(cmds, m.decide(c, p.d))
	}
	if len(gone) > 0 {
		m.setNote(noteWarn, "left the queue or already sent, not approved here: "+strings.Join(gone, ", "), 5*time.Second)
	}
	return tea.Batch(cmds...)
}

// closeSeveralIfChanged closes the dialog when a listed confirmation left
// the queue: the operator agrees to exactly the list shown.
func (m *Model) closeSeveralIfChanged() {
	if m.several == nil {
		return
	}
	for _, c := range m.several.cs {
		if _, ok := m.queue.table.Get(c.ID); !ok {
			m.several = nil
			m.setNote(noteWarn, "approve several closed: "+c.Requester+"'s confirmation left the queue; nothing was sent", 5*time.Second)
			return
		}
	}
}

// severalHelp is the footer while the dialog is open.
func (m *Model) severalHelp() helpKeys {
	confirm := m.keys.Confirm
	b := []key.Binding{
		key.NewBinding(key.WithKeys(confirm.Keys()...), key.WithHelp(confirm.Help().Key, "approve all listed")),
		pair("scroll", m.keys.PaneDown, m.keys.PaneUp),
		key.NewBinding(key.WithKeys("any"), key.WithHelp("any other key", "cancels (nothing is decided)")),
	}
	return helpKeys{short: b, full: [][]key.Binding{b}}
}

// view renders the dialog box, outer width w, at most height lines: every
// listed operation whole, wrapped; what does not fit scrolls, and the box
// says which lines are shown.
func (d *severalDialog) view(m *Model, w, height int) string {
	inner := max(20, w-4)
	var body []string
	for i := range d.cs {
		c := &d.cs[i]
		body = append(body, m.styles.Strong.Render(strconv.Itoa(i+1)+". confirmation "+c.ID))
		body = append(body, wrapFields(m.styles, m.queue.operationFields(c, m.now()), inner)...)
		body = append(body, "")
	}
	head := []string{m.styles.Title.Render("Approve " + strconv.Itoa(len(d.cs)) + " confirmations?"), ""}
	foot := []string{m.styles.Strong.Render(m.keys.Confirm.Help().Key) + " approve all " + strconv.Itoa(len(d.cs)) +
		" · " + keyName(m.keys.PaneDown.Keys()) + "/" + keyName(m.keys.PaneUp.Keys()) + " scroll · any other key cancels"}
	room := max(1, height-2-len(head)-len(foot)-1) // border, and the line count
	d.top = max(0, min(d.top, len(body)-room))
	shown := body[d.top:min(len(body), d.top+room)]
	count := "lines " + strconv.Itoa(d.top+1) + "–" + strconv.Itoa(d.top+len(shown)) + " of " + strconv.Itoa(len(body))
	lines := append(append(append(head, shown...), m.styles.Dim.Render(count)), foot...)
	return lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(0, 1).Width(w).Render(strings.Join(lines, "\n"))
}
