package ui

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/virgo-hub/virgo-tui/internal/ui/keymap"
)

// inboxTimeout bounds one inbox call so a stuck hub shows as an error.
const inboxTimeout = 10 * time.Second

// inboxLoadedMsg is the inbox fetched after a snapshot.
type inboxLoadedMsg struct {
	state InboxState
	err   error
}

// inboxStatusMsg is the unread count and typing asked again after a
// batch changed the inbox.
type inboxStatusMsg struct {
	status InboxStatus
	err    error
}

// inboxActedMsg is the outcome of one inbox action: done says what was
// done, for the status line; a reaction not applied carries the reason.
type inboxActedMsg struct {
	done string
	err  error
}

// fetchInbox loads the inbox, when the client has one.
func (m *Model) fetchInbox() tea.Cmd {
	ic := m.inboxClient
	if ic == nil {
		return nil
	}
	ctx := m.ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, inboxTimeout)
		defer cancel()
		st, err := ic.Inbox(ctx, inboxKeep)
		return inboxLoadedMsg{state: st, err: err}
	}
}

// fetchInboxStatus asks the unread count and who is typing again.
func (m *Model) fetchInboxStatus() tea.Cmd {
	ic := m.inboxClient
	if ic == nil {
		return nil
	}
	ctx := m.ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, inboxTimeout)
		defer cancel()
		st, err := ic.InboxStatus(ctx)
		return inboxStatusMsg{status: st, err: err}
	}
}

// inboxCall runs one inbox action in a command and reports it.
func (m *Model) inboxCall(what string, call func(context.Context, InboxClient) (string, error)) tea.Cmd {
	ic, ctx, log := m.inboxClient, m.ctx, m.log
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, inboxTimeout)
		defer cancel()
		done, err := call(ctx, ic)
		log.Info("inbox", "action", what, "err", err)
		return inboxActedMsg{done: done, err: err}
	}
}

// onInboxMsg takes what an inbox command brought back.
func (m *Model) onInboxMsg(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case inboxLoadedMsg:
		if msg.err != nil {
			m.setNote(noteError, "inbox: "+msg.err.Error(), 8*time.Second)
			return nil
		}
		m.inbox.load(msg.state, m.now())
		m.closeInboxPromptIfGone()
		m.closeAnswerIfChanged()
	case inboxStatusMsg:
		if msg.err != nil {
			m.setNote(noteWarn, "inbox status: "+msg.err.Error(), 5*time.Second)
			return nil
		}
		m.inbox.status(msg.status)
	case inboxActedMsg:
		if msg.err != nil {
			m.setNote(noteError, msg.err.Error(), 10*time.Second)
			return nil
		}
		m.setNote(noteInfo, msg.done, 5*time.Second)
	}
	return nil
}

// inboxScreen is the inbox view, or why there is none.
func (m *Model) inboxScreen(now time.Time, h int) string {
	if m.inboxClient == nil {
		return fit(m.styles.Dim.Render("  the inbox needs a hub with the human channel; this console's client has none"), m.width, h)
	}
	return m.inbox.view(now)
}

// inboxKey handles the inbox view's keys: the table's and the pane's, then
// on a confirmation the queue's decision keys (under the same arming and
// standing-alone rules), on an item reply, react, ack, tick, save and
// answer (a card's dialog of actions).
func (m *Model) inboxKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	v := m.inbox
	_, onConf := v.selectedConfirmation()
	switch {
	case v.pane.open && m.scrollPane(&v.pane, v.paneLines, v.paneHeight(), v.height-1, msg):
	case tableKeys(k, v.table, msg):
	case m.paneKey(&v.pane, msg):
		v.setSize(v.width, v.height)
	case key.Matches(msg, k.Back):
		v.table.SetFilter("")
	case key.Matches(msg, k.Filter):
		return m.openPrompt(promptFilter, "filter › ", v.table.Filter())
	case onConf && key.Matches(msg, k.Approve):
		return m.decideSelected(Decision{Approve: true})
	case onConf && key.Matches(msg, k.ApproveRemember):
		return m.openRememberDialog()
	case onConf && key.Matches(msg, k.Deny):
		return m.openDenyPrompt()
	case key.Matches(msg, k.Reply):
		return m.inboxPrompt(promptReply)
	case key.Matches(msg, k.React):
		return m.inboxPrompt(promptReact)
	case key.Matches(msg, k.Tick):
		return m.inboxPrompt(promptTick)
	case key.Matches(msg, k.Save):
		return m.inboxPrompt(promptSave)
	case key.Matches(msg, k.Ack):
		return m.ackSelected()
	case key.Matches(msg, k.Answer):
		return m.openAnswerDialog()
	}
	return nil
}

// inboxPrompt opens the field of an inbox action on the selected item. A
// key that opens a field always opens it (what is typed next must never
// run as list keys); where the action does not apply, the field says so
// and its enter sends nothing.
func (m *Model) inboxPrompt(k promptKind) tea.Cmd {
	it, ok := m.inbox.selected()
	why := m.inboxUnfit(k, it, ok)
	var label, value string
	switch {
	case why != "":
		m.setNote(noteWarn, why, 4*time.Second)
		label = "(" + why + ": enter sends nothing) › "
	case k == promptReply:
		label = "reply to " + it.Persona + " › "
	case k == promptReact:
		label = "react to " + it.Persona + " (" + strings.Join(m.inbox.reactions, " ") + ") › "
	case k == promptTick:
		label = "tick or untick line of " + it.Title + " (1–" + strconv.Itoa(len(it.Todo)) + ") › "
	case k == promptSave:
		label = "save " + it.File.Name + " (" + byteSize(it.File.Size) + ") to › "
		value = saveName(it.File.Name)
	}
	typed := why == "" && !m.standing.alone
	if typed {
		label = inboxTypedLabel
	}
	cmd := m.openPrompt(k, label, value)
	m.fieldAt = m.now()
	if why == "" && !typed {
		m.inboxFor = it.ID
	}
	if k == promptReply {
		m.input.CharLimit = replyLimit
	}
	return cmd
}

// inboxTypedLabel is an inbox field's label once the key that opened it
// turned out to be typing: the field keeps what is typed (no key is ever
// dropped), but its enter sends nothing.
const inboxTypedLabel = "(typing — not a deliberate key: enter sends nothing) › "

// inboxTyped is a key typed into an inbox field: the key that opened it
// must stand alone after it too, as a decision key does, so a key within
// the settle time of it (an enter too) shows it was part of typing — "the
// fix is ready⏎" typed into the list opens the tick field at its `t`, and
// its enter must not send the rest.
func (m *Model) inboxTyped() {
	if m.inboxFor == "" || m.now().Sub(m.fieldAt) >= m.opts.Settle {
		return
	}
	m.inboxFor = ""
	m.input.Prompt = inboxTypedLabel
}

// replyLimit bounds a reply typed in the console (the channel's own bound
// is larger; a longer answer goes through virgo-tui inbox reply).
const replyLimit = 2000

// saveName is the default path offered for a file: its name alone,
// without any directory a persona put in it, in the working directory.
func saveName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	if name == "" || name == "." || name == ".." {
		return "inbox-file"
	}
	return name
}

// inboxUnfit says why action k does not apply to the selected item (it,
// if ok), or "" when it does.
func (m *Model) inboxUnfit(k promptKind, it *InboxItem, ok bool) string {
	switch {
	case m.inboxClient == nil:
		return "no inbox on this hub"
	case !ok:
		return m.inboxNoItem()
	case k == promptSave && it.File == nil:
		return "not a file"
	case k == promptTick && (it.Kind != ItemTodo || len(it.Todo) == 0):
		return "not a todo card"
	case k == promptReply && it.FromHuman:
		return "that is your own reply; select the persona's item"
	case k == promptReact && len(m.inbox.reactions) == 0:
		return "the hub offers no reactions"
	}
	return ""
}

// isInboxPrompt says whether the open field is one of the inbox's.
func (m *Model) isInboxPrompt() bool {
	return m.prompt == promptReply || m.prompt == promptReact || m.prompt == promptTick || m.prompt == promptSave
}

// closeInboxPromptIfGone closes an inbox field whose item left the view.
func (m *Model) closeInboxPromptIfGone() {
	if !m.isInboxPrompt() || m.inboxFor == "" {
		return
	}
	if _, ok := m.inbox.table.Get(m.inboxFor); !ok {
		m.closePrompt()
		m.setNote(noteWarn, "that item left the inbox view; nothing was sent", 4*time.Second)
	}
}

// submitInboxPrompt sends what the field holds about its item.
func (m *Model) submitInboxPrompt(value string) tea.Cmd {
	kind, id := m.prompt, m.inboxFor
	r, ok := m.inbox.table.Get(id)
	if id == "" || !ok {
		m.closePrompt()
		m.setNote(noteWarn, "nothing was sent", 4*time.Second)
		return nil
	}
	it := r.InboxItem
	n := "#" + strconv.FormatInt(r.seq, 10)
	switch kind {
	case promptReply:
		if value == "" {
			m.setNote(noteWarn, "a reply needs text: type it, or esc to cancel", 4*time.Second)
			return nil
		}
		m.closePrompt()
		return m.inboxCall("reply", func(ctx context.Context, ic InboxClient) (string, error) {
			return "replied to " + it.Persona + " on " + n, ic.ReplyInbox(ctx, id, value)
		})
	case promptReact:
		if !slices.Contains(m.inbox.reactions, value) {
			m.setNote(noteWarn, "no reaction "+strconv.Quote(value)+": one of "+strings.Join(m.inbox.reactions, ", "), 5*time.Second)
			return nil
		}
		m.closePrompt()
		return m.inboxCall("react", func(ctx context.Context, ic InboxClient) (string, error) {
			o, err := ic.ReactInbox(ctx, id, value)
			if err == nil && !o.Applied {
				return "reaction " + value + " on " + n + " not applied: " + o.Reason, nil
			}
			return "reacted " + value + " on " + n, err
		})
	case promptTick:
		line, err := strconv.Atoi(value)
		if err != nil || line < 1 || line > len(it.Todo) {
			m.setNote(noteWarn, "type a line number from 1 to "+strconv.Itoa(len(it.Todo)), 4*time.Second)
			return nil
		}
		done := !it.Todo[line-1].Done
		m.closePrompt()
		verb := "ticked"
		if !done {
			verb = "unticked"
		}
		return m.inboxCall("tick", func(ctx context.Context, ic InboxClient) (string, error) {
			return verb + " line " + strconv.Itoa(line) + " of " + n, ic.TickInbox(ctx, id, line-1, done)
		})
	case promptSave:
		if value == "" {
			m.setNote(noteWarn, "type a path to save to, or esc to cancel", 4*time.Second)
			return nil
		}
		m.closePrompt()
		return m.inboxCall("save", func(ctx context.Context, ic InboxClient) (string, error) {
			path, err := ic.SaveInboxFile(ctx, id, value)
			return "saved " + n + " to " + path + " (sha256 checked)", err
		})
	}
	return nil
}

// inboxNoItem says why no channel item is selected: a confirmation is,
// and is decided with the decision keys, or nothing is.
func (m *Model) inboxNoItem() string {
	if _, ok := m.inbox.selectedConfirmation(); ok {
		return "a confirmation: " + keyName(m.keys.Approve.Keys()) + " approves, " + keyName(m.keys.Deny.Keys()) + " denies"
	}
	return "no item selected"
}

// ackSelected is the ack key on the selected persona item. Like a
// decision key it must stand alone (the `a` of "are you there" typed into
// the list acks nothing): it counts after a quiet and is sent once the
// settle time passed with no key (settleAck).
func (m *Model) ackSelected() tea.Cmd {
	it, ok := m.inbox.selected()
	switch {
	case m.inboxClient == nil:
		return nil
	case !ok:
		m.setNote(noteWarn, "nothing to ack: "+m.inboxNoItem(), 4*time.Second)
		return nil
	case it.FromHuman:
		m.setNote(noteWarn, "that is your own reply: the persona acks it", 4*time.Second)
		return nil
	case it.Acked:
		m.setNote(noteInfo, "already read", 3*time.Second)
		return nil
	case !m.standing.alone:
		m.setNote(noteWarn, "typing: nothing was acked ("+m.aloneRule()+")", 5*time.Second)
		return nil
	}
	m.standing.pending = &pendingDecision{ack: it.ID, at: m.now()}
	m.setNote(noteInfo, "ack #"+strconv.FormatInt(itemSeq(it.ID), 10)+" in "+m.opts.Settle.String()+" unless a key comes", 2*time.Second)
	return nil
}

// settleAck sends an ack that waited out the settle time, when its item is
// still the inbox's selection on screen.
func (m *Model) settleAck(p *pendingDecision) tea.Cmd {
	if it, ok := m.inbox.selected(); !ok || it.ID != p.ack || m.view != viewInbox {
		m.setNote(noteWarn, "the selection moved: nothing was acked", 4*time.Second)
		return nil
	}
	id, n := p.ack, "#"+strconv.FormatInt(itemSeq(p.ack), 10)
	return m.inboxCall("ack", func(ctx context.Context, ic InboxClient) (string, error) {
		return "marked " + n + " read", ic.AckInbox(ctx, id)
	})
}

// jump selects the newest item of a persona (address or name, exact first,
// then by prefix), clearing a filter that hides it.
func (v *inboxView) jump(q string) bool {
	return v.table.Jump(q, func(r *inboxRow) (string, string) { return r.Persona, r.Name })
}

// inboxHelp is the inbox view's help; on a confirmation its short help
// shows the decision keys, which act there.
func inboxHelp(k keymap.KeyMap, onConf bool) helpKeys {
	short := []key.Binding{k.Reply, k.Answer, k.React, k.Ack, k.Tick, k.Save, k.Down, k.Up, k.Help, k.Quit}
	if onConf {
		short = []key.Binding{k.Approve, k.ApproveRemember, k.Deny, k.Down, k.Up, k.Help, k.Quit}
	}
	return helpKeys{
		short: short,
		full: [][]key.Binding{
			{k.Reply, k.Answer, k.React, k.Ack, k.Tick, k.Save},
			{k.Approve, k.ApproveRemember, k.Deny},
			{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
			{k.Detail, k.Zoom, k.Filter, k.Jump, k.Sort, k.SortReverse, k.Back},
			{k.NextView, k.PrevView, k.Presence, k.Queue, k.Wizard, k.Matrix, k.Inbox},
			{k.Notes, k.Latest, k.Help, k.Quit},
		},
	}
}
