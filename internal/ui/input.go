package ui

import (
	"strings"
	"time"
	"unicode"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/virgo-hub/virgo-tui/internal/ui/keymap"
	"github.com/virgo-hub/virgo-tui/internal/ui/textfield"
)

// onKey routes a key press: an open prompt first, then the shell's keys,
// then the current view's. No key is ever dropped; decision keys check
// their row is armed (see arming).
func (m *Model) onKey(msg tea.KeyPressMsg) tea.Cmd {
	if m.prompt != promptNone {
		return m.promptKey(msg)
	}
	if m.dialog != nil {
		return m.dialogKey(msg) // the dialog takes exactly one key, whatever it is
	}
	if m.several != nil {
		return m.severalKey(msg)
	}
	if m.answer != nil {
		return m.answerKey(msg)
	}
	k := m.keys
	if m.tooSmall() { // nothing is on screen to act on: only quit
		if key.Matches(msg, k.Quit) || msg.String() == "ctrl+c" {
			return tea.Quit
		}
		return nil
	}
	if key.Matches(msg, k.Help) && !(m.view == viewWizard && m.plugins.wizardTakesText(msg)) {
		m.help.ShowAll = !m.help.ShowAll // in every view, the wizard too
		m.layout()
		return nil
	}
	if m.notes.open {
		return m.notesKey(msg)
	}
	if m.view == viewWizard && m.plugins.hasWizard() {
		return m.plugins.update(m.view, msg) // the wizard's keys and typed text
	}
	switch {
	case key.Matches(msg, k.Quit) || msg.String() == "ctrl+c":
		return tea.Quit
	case key.Matches(msg, k.NextView):
		return m.switchTo((m.view + 1) % viewCount)
	case key.Matches(msg, k.PrevView):
		return m.switchTo((m.view + viewCount - 1) % viewCount)
	case key.Matches(msg, k.Presence):
		return m.switchTo(viewPresence)
	case key.Matches(msg, k.Queue):
		return m.switchTo(viewQueue)
	case key.Matches(msg, k.Wizard):
		return m.switchTo(viewWizard)
	case key.Matches(msg, k.Matrix):
		return m.switchTo(viewMatrix)
	case key.Matches(msg, k.Inbox):
		return m.switchTo(viewInbox)
	case key.Matches(msg, k.Notes):
		m.notes.open = true
		return nil
	case key.Matches(msg, k.Latest):
		return m.showCalled()
	case key.Matches(msg, k.Jump):
		if m.view == viewQueue {
			return m.openPrompt(promptJump, "jump to requester or id › ", "")
		}
		if m.view == viewInbox {
			return m.openPrompt(promptJump, "jump to persona › ", "")
		}
		return m.openPrompt(promptJump, "jump to address or name › ", "")
	}
	switch m.view {
	case viewPresence:
		return m.presenceKey(msg)
	case viewQueue:
		return m.queueKey(msg)
	case viewInbox:
		return m.inboxKey(msg)
	}
	return m.plugins.update(m.view, msg)
}

// switchTo changes the view; entering the wizard starts a fresh one.
func (m *Model) switchTo(v viewID) tea.Cmd {
	if v == m.view {
		return nil
	}
	m.view = v
	m.layout()
	if v == viewWizard {
		return m.plugins.openWizard()
	}
	return nil
}

// tableKeys are the moves every table view shares; it reports whether the
// key was one of them.
func tableKeys[T any](k keymap.KeyMap, t *Table[T], msg tea.KeyPressMsg) bool {
	switch {
	case key.Matches(msg, k.Up):
		t.Move(-1)
	case key.Matches(msg, k.Down):
		t.Move(1)
	case key.Matches(msg, k.PageUp):
		t.Move(-t.PageSize())
	case key.Matches(msg, k.PageDown):
		t.Move(t.PageSize())
	case key.Matches(msg, k.Top):
		t.First()
	case key.Matches(msg, k.Bottom):
		t.Last()
	case key.Matches(msg, k.Sort): // the next column, ascending first
		col, _ := t.Sort()
		t.SortBy((col+1)%len(t.spec.Columns), false)
	case key.Matches(msg, k.SortReverse):
		col, desc := t.Sort()
		t.SortBy(col, !desc)
	default:
		return false
	}
	return true
}

func (m *Model) presenceKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	v := m.presence
	switch {
	case v.pane.open && m.scrollPane(&v.pane, v.paneLines, v.paneHeight(), v.height, msg):
	case tableKeys(k, v.table, msg):
	case m.paneKey(&v.pane, msg):
		v.setSize(v.width, v.height)
	case key.Matches(msg, k.Filter):
		return m.openPrompt(promptFilter, "filter › ", v.table.Filter())
	case key.Matches(msg, k.Back):
		v.table.SetFilter("")
	case key.Matches(msg, k.SessionStart):
		return m.sessionKey(sessionStart)
	case key.Matches(msg, k.SessionStop):
		return m.sessionKey(sessionStop)
	case key.Matches(msg, k.SessionAttach):
		return m.sessionKey(sessionAttach)
	}
	return nil
}

// scrollPane scrolls an open detail pane with its own keys (never the
// movement keys, which move the selection the pane shows); it
// reports whether the key was one of them. under is the pane's height
// below the table, body the whole view's (the zoomed pane's).
func (m *Model) scrollPane(d *detailPane, lines func(time.Time) (string, []string), under, body int, msg tea.KeyPressMsg) bool {
	_, ls := lines(m.now())
	h := under
	if d.zoomed {
		h = body
	}
	return paneKeys(m.keys, d, msg, len(ls), paneBody(h))
}

// paneKey opens, widens and closes a detail pane: enter opens it and
// widens it, z widens it, esc closes one level. It reports whether the
// key was one of them and changed the pane; it never decides.
func (m *Model) paneKey(d *detailPane, msg tea.KeyPressMsg) bool {
	switch {
	case key.Matches(msg, m.keys.Detail):
		d.enter()
	case key.Matches(msg, m.keys.Zoom):
		d.zoom()
	case key.Matches(msg, m.keys.Back):
		return d.back()
	default:
		return false
	}
	return true
}

func (m *Model) queueKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	v := m.queue
	switch {
	case (v.pane.open || v.previewing()) && m.scrollPane(&v.pane, v.paneLines, v.paneHeight(), v.height, msg):
	case tableKeys(k, v.table, msg):
	case m.paneKey(&v.pane, msg): // enter, z, esc: the detail only, never approve
		v.setSize(v.width, v.height)
	case key.Matches(msg, k.Back): // esc with no pane: clears the filter, never approves
		v.table.SetFilter("")
	case key.Matches(msg, k.Filter):
		return m.openPrompt(promptFilter, "filter › ", v.table.Filter())
	case key.Matches(msg, k.Approve):
		return m.decideSelected(Decision{Approve: true})
	case key.Matches(msg, k.ApproveRemember):
		return m.openRememberDialog()
	case key.Matches(msg, k.Mark): // never decides
		m.toggleMark()
	case key.Matches(msg, k.ApproveMarked):
		return m.openSeveralDialog()
	case key.Matches(msg, k.Deny):
		return m.openDenyPrompt()
	}
	return nil
}

// openDenyPrompt opens the reason field for the selected confirmation. It
// always opens, because a key that opens a field always opens it (what is
// typed next must not run as list keys): on a row that is not armed yet,
// or where there is nothing this operator may deny, the prompt says so and
// its enter sends nothing.
func (m *Model) openDenyPrompt() tea.Cmd {
	c, ok := m.selectedConfirmation()
	why := m.undecidable(c, ok)
	var label, id string
	armed := false
	switch {
	case why != "":
		m.setNote(noteWarn, why, 4*time.Second)
		label = "deny (nothing to deny here: enter sends nothing) › "
	default:
		id, armed = c.ID, m.armedFor(c.ID, m.now())
		label = "deny " + c.Requester + " — reason › "
		switch {
		case !armed:
			label = "deny " + c.Requester + " (" + m.armedWhy() + " — look first: enter sends nothing) › "
		case !m.standing.alone:
			armed = false
			label = typedLabel(c)
		}
	}
	cmd := m.openPrompt(promptReason, label, "")
	m.reasonFor, m.reasonArmed, m.reasonWhy, m.fieldAt = id, armed, why, m.now()
	return cmd
}

// typedLabel is the deny field's label once its `d` turned out to be
// typing: the field keeps what is typed (no key is ever dropped), but its
// enter sends nothing.
func typedLabel(c *Confirmation) string {
	return "deny " + c.Requester + " (typing — not a deliberate d: enter sends nothing) › "
}

// reasonTyped is a key typed into the deny field: the `d` that opened it
// must stand alone after it too, so a key within the settle time of the
// `d` shows the `d` was part of typing, and the field's enter sends
// nothing.
func (m *Model) reasonTyped() {
	if !m.reasonArmed || m.now().Sub(m.fieldAt) >= m.opts.Settle {
		return
	}
	m.reasonArmed = false
	if c, ok := m.queue.table.Get(m.reasonFor); ok {
		m.input.Prompt = typedLabel(c)
	}
}

// undecidable says why the selected confirmation (c, if ok) cannot be
// decided by this operator now, or "" when it can.
func (m *Model) undecidable(c *Confirmation, ok bool) string {
	switch {
	case !ok && m.queue.table.Total() > 0:
		return "nothing selected: the filter shows no confirmations"
	case !ok:
		return "nothing to decide: the queue is empty"
	case m.queue.group(c) == unroutable:
		return "unroutable: no authority is bound for this confirmation; view only"
	case !m.queue.actionable(c):
		return "not yours: routed to " + c.Authority + "; view only"
	case m.isDeciding(c.ID):
		return "already sent: waiting for the hub"
	}
	return ""
}

// selectedConfirmation is the confirmation the decision keys act on: the
// queue's selected row, or the inbox's when it is a confirmation.
func (m *Model) selectedConfirmation() (*Confirmation, bool) {
	if m.view == viewInbox {
		return m.inbox.selectedConfirmation()
	}
	return m.queue.selected()
}

// actionableSelected returns the selected confirmation if the operator
// may decide it now, and otherwise says why not in the status line.
func (m *Model) actionableSelected() (*Confirmation, bool) {
	c, ok := m.selectedConfirmation()
	if why := m.undecidable(c, ok); why != "" {
		m.setNote(noteWarn, why, 4*time.Second)
		return nil, false
	}
	return c, true
}

// decideSelected is a decision key on the selected confirmation; it acts
// only if the row is armed.
func (m *Model) decideSelected(d Decision) tea.Cmd {
	c, ok := m.actionableSelected()
	if !ok {
		return nil
	}
	if !m.armedFor(c.ID, m.now()) {
		m.lookFirst(c, "approved")
		return nil
	}
	if !m.standing.alone {
		m.typedNote(c, d)
		return nil
	}
	m.holdDecision(c, d)
	return nil
}

func (m *Model) decide(c *Confirmation, d Decision) tea.Cmd {
	m.deciding[c.ID] = d
	m.setNote(noteInfo, "sending "+verb(d)+" for "+c.Requester+" "+c.Operation+"…", 10*time.Second)
	return decideCmd(m.ctx, m.client, m.log, *c, d)
}

// openPrompt gives the keys to the prompt line.
func (m *Model) openPrompt(k promptKind, label, value string) tea.Cmd {
	m.prompt = k
	m.input.Prompt = label
	m.input.SetWidth(max(8, m.width-len([]rune(label))-2))
	m.input.SetValue(value)
	m.input.CursorEnd()
	m.layout()
	return m.input.Focus()
}

func (m *Model) closePrompt() {
	m.prompt = promptNone
	m.reasonFor, m.reasonArmed, m.reasonWhy, m.fieldAt = "", false, "", time.Time{}
	m.inboxFor, m.input.CharLimit = "", promptLimit
	m.input.Blur()
	m.input.SetValue("")
	m.layout()
}

// escThen takes an alt+key press in a field as what was typed: esc, then
// the key. A terminal that reads an esc and the key after it together
// reports them as one alt+key press (an idle machine under a fast typist
// does); taken as a key of the field, the esc was lost, the field stayed
// open under keys meant for the view, and a deny reason could take the
// next words and an enter. The key is then handled as if typed alone, so
// the view's arming applies to it as to any key.
func (m *Model) escThen(msg tea.KeyPressMsg) tea.Cmd {
	esc := m.promptKey(tea.KeyPressMsg{Code: tea.KeyEscape})
	k := tea.Key(msg)
	k.Mod &^= tea.ModAlt
	if k.Text == "" && unicode.IsPrint(k.Code) {
		k.Text = string(k.Code)
	}
	return tea.Batch(esc, m.onKey(tea.KeyPressMsg(k)))
}

// promptKey handles a key while the prompt line is open. Enter submits,
// esc cancels; neither ever approves anything.
func (m *Model) promptKey(msg tea.KeyPressMsg) tea.Cmd {
	if msg.Mod.Contains(tea.ModAlt) {
		return m.escThen(msg)
	}
	switch msg.String() {
	case "ctrl+c":
		return tea.Quit
	case "esc":
		if m.prompt == promptFilter {
			m.filterCurrent("")
		}
		if m.prompt == promptReason {
			m.setNote(noteInfo, "deny cancelled: nothing was decided", 3*time.Second)
		}
		if m.isInboxPrompt() {
			m.setNote(noteInfo, "cancelled: nothing was sent", 3*time.Second)
		}
		m.closePrompt()
		return nil
	case "enter":
		if m.isInboxPrompt() {
			m.inboxTyped()
		}
		return m.submitPrompt()
	}
	m.fieldTyped()
	if textfield.Full(&m.input, msg) {
		if n := textfield.FullNote(&m.input); m.note.text != n {
			m.setNote(noteWarn, n, 3*time.Second)
		}
		return nil
	}
	return m.toPrompt(msg)
}

// fieldTyped notes text typed or pasted into the open field: within the
// settle time of the key that opened it, that key was typing (see
// reasonTyped and inboxTyped).
func (m *Model) fieldTyped() {
	if m.prompt == promptReason {
		m.reasonTyped()
	}
	if m.isInboxPrompt() {
		m.inboxTyped()
	}
}

// toPrompt gives a key or a paste to the prompt's field.
func (m *Model) toPrompt(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	if m.prompt == promptFilter {
		m.filterCurrent(m.input.Value())
	}
	return cmd
}

// onPaste gives a paste to the open field (the prompt line's, or the
// wizard's), cut to the room the field has left in one step, and says in
// the status line what was cut. A paste is text, never a key: it decides
// nothing, and with no field open it is not taken.
func (m *Model) onPaste(msg tea.PasteMsg) tea.Cmd {
	switch {
	case m.prompt != promptNone:
		m.fieldTyped()
		msg, cut := textfield.Paste(&m.input, msg)
		if cut != "" {
			m.setNote(noteWarn, cut, 5*time.Second)
		}
		return m.toPrompt(msg)
	case m.view == viewWizard && m.plugins.hasWizard() && m.dialog == nil && m.several == nil && !m.notes.open:
		return m.plugins.update(m.view, msg)
	}
	m.setNote(noteInfo, "paste not taken: no field is open", 3*time.Second)
	return nil
}

func (m *Model) submitPrompt() tea.Cmd {
	value := strings.TrimSpace(m.input.Value())
	switch m.prompt {
	case promptFilter:
		m.closePrompt()
	case promptJump:
		found := false
		switch m.view {
		case viewQueue:
			found = m.queue.jump(value)
		case viewInbox:
			found = m.inbox.jump(value)
		default:
			m.view = viewPresence
			found = m.presence.jump(value)
		}
		m.closePrompt()
		if !found {
			m.setNote(noteWarn, "no match for "+value, 4*time.Second)
		}
	case promptReason:
		if value == "" && m.reasonFor != "" {
			m.setNote(noteWarn, "a denial needs a reason: type one, or esc to cancel", 4*time.Second)
			return nil
		}
		id, armed, why := m.reasonFor, m.reasonArmed, m.reasonWhy
		m.closePrompt()
		c, ok := m.queue.table.Get(id)
		switch {
		case id == "":
			m.setNote(noteWarn, "nothing was denied: "+why, 4*time.Second)
			return nil
		case !ok:
			m.setNote(noteWarn, "that confirmation has left the queue; nothing was sent", 4*time.Second)
			return nil
		case !armed && m.armedFor(id, m.now()):
			m.typedNote(c, Decision{})
			return nil
		case !armed:
			m.lookFirst(c, "denied")
			return nil
		}
		m.holdDecision(c, Decision{Reason: value})
		return nil
	case promptReply, promptReact, promptTick, promptSave:
		return m.submitInboxPrompt(value)
	}
	return nil
}

// filterCurrent filters the current view's table.
func (m *Model) filterCurrent(q string) {
	if m.view == viewQueue {
		m.queue.table.SetFilter(q)
		return
	}
	if m.view == viewInbox {
		m.inbox.table.SetFilter(q)
		return
	}
	m.presence.table.SetFilter(q)
}

// isDeciding says whether a decision on id is on its way to the hub.
func (m *Model) isDeciding(id string) bool {
	_, ok := m.deciding[id]
	return ok
}
