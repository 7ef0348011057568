package ui

import (
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// View renders the whole screen: status bar, tabs, the current view, the
// status line and the help footer, exactly width×height cells.
func (m *Model) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	v.WindowTitle = m.windowTitle()
	v.ReportFocus = true // a blurred console calls the operator (notify.go)
	return v
}

// Render is View's content, for tests and benchmarks.
func (m *Model) Render() string {
	if m.tooSmall() {
		return m.tooSmallScreen()
	}
	now := m.now()
	var b strings.Builder
	b.WriteString(m.statusBar())
	b.WriteByte('\n')
	b.WriteString(m.tabs())
	b.WriteByte('\n')
	h := m.bodyHeight()
	switch {
	case m.notes.open:
		b.WriteString(m.notesView(now, h))
	case !m.loaded && (m.view == viewPresence || m.view == viewQueue):
		b.WriteString(fit(m.styles.Dim.Render("  connecting to the hub…"), m.width, h))
	case m.view == viewPresence && m.presence.table.Total() == 0:
		b.WriteString(m.emptyInstallation(h))
	case m.view == viewPresence:
		b.WriteString(m.presence.view(now))
	case m.view == viewQueue && (m.dialog != nil || m.several != nil):
		b.WriteString(m.overDialog(m.queue.view(now), m.width, h))
	case m.view == viewQueue:
		b.WriteString(m.queue.view(now))
	case m.view == viewInbox && (m.dialog != nil || m.answer != nil):
		b.WriteString(m.overDialog(m.inboxScreen(now, h), m.width, h))
	case m.view == viewInbox:
		b.WriteString(m.inboxScreen(now, h))
	default:
		b.WriteString(m.plugins.view(m.styles, m.view, m.width, h))
	}
	b.WriteByte('\n')
	b.WriteString(m.statusLine(now))
	b.WriteByte('\n')
	b.WriteString(m.footer())
	return b.String()
}

// statusBar is the top line: installation, operator, hub, pending count,
// then the home, which is the first to be cut on a narrow terminal.
func (m *Model) statusBar() string {
	st := m.styles
	inst := m.installation
	if inst == "" {
		inst = "—"
	}
	operator := m.operator
	if operator == "" {
		operator = "—"
	}
	conn := "○ " + m.conn.String()
	if m.conn == Connected {
		conn = "● connected"
	}
	parts := []string{
		st.Title.Render("virgo-tui") + " " + inst,
		st.Label.Render("as ") + operator,
		st.Label.Render("hub ") + conn,
		st.Strong.Render(strconv.Itoa(m.queue.mine)) + " pending for you",
	}
	if m.inboxClient != nil {
		parts = append(parts, st.Strong.Render(strconv.Itoa(m.inbox.unread))+" unread")
	}
	if m.home != "" {
		parts = append(parts, st.Dim.Render(m.home))
	}
	line := strings.Join(parts, st.Dim.Render(" │ "))
	return ansi.Truncate(line, m.width, "…")
}

// tabs is the view switcher line.
func (m *Model) tabs() string {
	st := m.styles
	var b strings.Builder
	for i := range viewCount {
		title := strconv.Itoa(int(i)+1) + " " + viewTitles[i]
		if i == viewQueue && m.queue.mine > 0 {
			title += " (" + strconv.Itoa(m.queue.mine) + ")"
		}
		if i == viewInbox && m.inbox.unread > 0 {
			title += " (" + strconv.Itoa(m.inbox.unread) + ")"
		}
		if i == m.view {
			b.WriteString(st.TabOn.Render("[" + title + "]"))
		} else {
			b.WriteString(st.TabOff.Render(" " + title + " "))
		}
		b.WriteByte(' ')
	}
	// More fresh notes than the status line shows: said here, where they
	// take no room from the note itself, and before the row count, which
	// a narrow terminal cuts first.
	if more := m.notes.fresh(m.now()) - 1; more > 0 && m.note.text != "" {
		b.WriteString(st.Dim.Render("+" + strconv.Itoa(more) + " notes (" + keyName(m.keys.Notes.Keys()) + ") · "))
	}
	if t, ok := m.currentTable(); ok {
		count := strconv.Itoa(t.Len())
		if t.Filter() != "" {
			count += "/" + strconv.Itoa(t.Total())
		}
		b.WriteString(st.Dim.Render(count + " rows"))
	}
	return ansi.Truncate(b.String(), m.width, "…")
}

// currentTable describes the current view's table for the tab line.
func (m *Model) currentTable() (interface {
	Len() int
	Total() int
	Filter() string
}, bool) {
	switch m.view {
	case viewPresence:
		return m.presence.table, true
	case viewQueue:
		return m.queue.table, true
	case viewInbox:
		return m.inbox.table, true
	}
	return nil, false
}

// statusLine is the line above the help: an open prompt, the latest note
// and the active filter, in that order of weight.
func (m *Model) statusLine(now time.Time) string {
	st := m.styles
	var parts []string
	var note string
	if m.note.text != "" && now.Before(m.note.until) {
		switch m.note.kind {
		case noteError:
			note = st.Error.Render("✗ " + m.note.text)
		case noteWarn:
			note = st.Warn.Render("! " + m.note.text)
		default:
			note = st.Note.Render(m.note.text)
		}
	}
	if m.prompt != promptNone {
		field := strings.TrimRight(m.input.View(), " ")
		// A note about the field (a paste cut to its limit) is read beside
		// it: a full field gives up its tail, down to a third of the line.
		if w := ansi.StringWidth(field) + 2 + ansi.StringWidth(note); note != "" && w > m.width {
			field = ansi.Truncate(field, max(m.width/3, m.width-ansi.StringWidth(note)-2), "…")
		}
		parts = append(parts, field)
	}
	if note != "" {
		parts = append(parts, note)
	}
	if t, ok := m.currentTable(); ok && t.Filter() != "" && m.prompt == promptNone {
		parts = append(parts, st.Dim.Render("filter: "+t.Filter()+" (esc clears)"))
	}
	return ansi.Truncate(strings.Join(parts, "  "), m.width, "…")
}

// helpKeys is the help of what has the keys now.
func (m *Model) helpKeys() helpKeys {
	if m.dialog != nil {
		return m.dialogHelp()
	}
	if m.several != nil {
		return m.severalHelp()
	}
	if m.answer != nil {
		return m.answerHelp()
	}
	if m.notes.open && m.prompt == promptNone {
		b := []key.Binding{key.NewBinding(key.WithKeys(append(m.keys.Notes.Keys(), m.keys.Back.Keys()...)...),
			key.WithHelp(keyName(m.keys.Notes.Keys())+"/"+keyName(m.keys.Back.Keys()), "close notes")), m.keys.Quit}
		return helpKeys{short: b, full: [][]key.Binding{b}}
	}
	switch m.prompt {
	case promptFilter:
		return promptHelp("keep filter", "clear filter")
	case promptJump:
		return promptHelp("jump", "cancel")
	case promptReason:
		return promptHelp("deny with this reason", "cancel (nothing is decided)")
	case promptReply, promptReact, promptTick, promptSave:
		return promptHelp("send", "cancel (nothing is sent)")
	}
	switch m.view {
	case viewQueue:
		return queueHelp(m.keys, m.queue.pane, m.queue.previewing())
	case viewPresence:
		return presenceHelp(m.keys, m.presence.pane)
	case viewInbox:
		_, onConf := m.inbox.selectedConfirmation()
		return inboxHelp(m.keys, onConf)
	}
	shell := []key.Binding{m.keys.NextView, m.keys.Help, m.keys.Quit}
	if child, ok := m.plugins.help(m.view); ok {
		if m.view == viewWizard { // the wizard takes every key but ctrl+c
			return helpKeys{short: child.ShortHelp(), full: child.FullHelp()}
		}
		return helpKeys{short: append(child.ShortHelp(), shell...), full: append(child.FullHelp(), append(shell, m.keys.Notes))}
	}
	return helpKeys{short: shell, full: [][]key.Binding{shell}}
}

func (m *Model) footer() string {
	return fit(m.helpView(), m.width, m.footerHeight())
}

// helpView is the short help, or the full help with its columns wrapped
// into as many bands as the width needs (bubbles' help would cut them).
func (m *Model) helpView() string {
	k := m.helpKeys()
	if !m.help.ShowAll {
		return m.help.ShortHelpView(k.ShortHelp())
	}
	h := m.help
	h.SetWidth(0) // measure unclipped
	var bands []string
	var band [][]key.Binding
	for _, g := range k.FullHelp() {
		next := append(band[:len(band):len(band)], g)
		if len(band) > 0 && lipglossWidth(h.FullHelpView(next)) > m.width {
			bands = append(bands, h.FullHelpView(band))
			next = [][]key.Binding{g}
		}
		band = next
	}
	if len(band) > 0 {
		bands = append(bands, h.FullHelpView(band))
	}
	return strings.Join(bands, "\n")
}

// footerHeight is one line of short help, or the full help's lines, at
// most half the screen.
func (m *Model) footerHeight() int {
	if !m.help.ShowAll {
		return 1
	}
	return min(strings.Count(m.helpView(), "\n")+1, max(1, m.height/2))
}

// lipglossWidth is the widest line of a block.
func lipglossWidth(s string) int {
	w := 0
	for _, l := range strings.Split(s, "\n") {
		w = max(w, ansi.StringWidth(l))
	}
	return w
}
