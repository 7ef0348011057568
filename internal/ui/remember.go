package ui

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/virgo-hub/virgo-tui/internal/ui/keymap"
)

// rememberDialog is `A` asking once more: it shows
// exactly the rule the prompt registry would store, and approves and
// stores it only on the confirm key (`y`); any other key cancels. A
// confirmation that may not be remembered says why instead, and any key
// closes it. It holds a copy of the confirmation `A` was pressed on, armed.
type rememberDialog struct {
	c Confirmation
}

// openRememberDialog is `A` on the selected confirmation.
func (m *Model) openRememberDialog() tea.Cmd {
	c, ok := m.actionableSelected()
	if !ok {
		return nil
	}
	if !m.armedFor(c.ID, m.now()) {
		m.lookFirst(c, "approved or remembered")
		return nil
	}
	if !m.standing.alone {
		m.typedNote(c, Decision{Approve: true, Remember: true})
		return nil
	}
	m.dialog = &rememberDialog{c: *c}
	return nil
}

// dialogKey is the one key the dialog takes: confirm stores, anything else
// cancels; either way the dialog closes.
func (m *Model) dialogKey(msg tea.KeyPressMsg) tea.Cmd {
	if msg.String() == "ctrl+c" {
		return tea.Quit
	}
	d := m.dialog
	m.dialog = nil
	c, ok := m.queue.table.Get(d.c.ID)
	switch {
	case d.c.Remember.Refusal != "":
		m.setNote(noteInfo, "not remembered: nothing was decided", 3*time.Second)
	case !key.Matches(msg, m.keys.Confirm):
		m.setNote(noteInfo, "approve and remember cancelled: nothing was decided", 3*time.Second)
	case !ok:
		m.setNote(noteWarn, "that confirmation has left the queue; nothing was sent", 4*time.Second)
	case m.isDeciding(c.ID):
		m.setNote(noteWarn, "already sent: waiting for the hub", 3*time.Second)
	case !m.standing.alone: // the confirm key stands alone like any decision key
		m.typedNote(c, Decision{Approve: true, Remember: true})
	default:
		m.holdDecision(c, Decision{Approve: true, Remember: true, Overlay: d.c.Remember.Overlay})
	}
	return nil
}

// closeDialogIfGone closes the dialog when its confirmation left the
// queue (decided elsewhere, expired, gone after a reconnect).
func (m *Model) closeDialogIfGone() {
	if m.dialog == nil {
		return
	}
	if _, ok := m.queue.table.Get(m.dialog.c.ID); !ok {
		m.dialog = nil
		m.setNote(noteWarn, "approve and remember closed: the confirmation left the queue; nothing was sent", 5*time.Second)
	}
}

// dialogHelp is the footer while the dialog is open.
func (m *Model) dialogHelp() helpKeys {
	if m.dialog.c.Remember.Refusal != "" {
		b := []key.Binding{key.NewBinding(key.WithKeys("any"), key.WithHelp("any key", "closes (nothing is decided)"))}
		return helpKeys{short: b, full: [][]key.Binding{b}}
	}
	confirm := m.keys.Confirm
	b := []key.Binding{
		key.NewBinding(key.WithKeys(confirm.Keys()...), key.WithHelp(confirm.Help().Key, "approve and store this rule")),
		key.NewBinding(key.WithKeys("any"), key.WithHelp("any other key", "cancels (nothing is decided)")),
	}
	return helpKeys{short: b, full: [][]key.Binding{b}}
}

// dialogWidth is the dialog box's outer width at a screen width.
func dialogWidth(screen int) int { return min(screen-2, 84) }

// overDialog draws the dialog over body (height lines of width cells),
// centred; the rows it covers are blanked across the whole width, so no
// cell of the list beside it reads as part of the dialog.
func (m *Model) overDialog(body string, width, height int) string {
	var box []string
	switch {
	case m.several != nil:
		box = strings.Split(m.several.view(m, dialogWidth(width), height), "\n")
	case m.answer != nil:
		box = strings.Split(m.answer.view(m, dialogWidth(width), height), "\n")
	default:
		box = strings.Split(m.dialog.view(m.styles, m.keys, dialogWidth(width)), "\n")
	}
	lines := strings.Split(fit(body, width, height), "\n")
	x := max(0, (width-ansi.StringWidth(box[0]))/2)
	y := max(0, (height-len(box))/2)
	for i, b := range box {
		if y+i < len(lines) {
			lines[y+i] = strings.Repeat(" ", x) + b
		}
	}
	return fit(strings.Join(lines, "\n"), width, height)
}

// view renders the dialog box, outer width w. Every value is wrapped,
// never cut: the operator agrees to exactly what is shown.
func (d *rememberDialog) view(st *Styles, keys keymap.KeyMap, w int) string {
	inner := max(20, w-4) // border and padding
	c, r := d.c, d.c.Remember
	var lines []string
	add := func(s string) { lines = append(lines, wrapWords(s, inner)...) }
	label := func(name, value string) {
		const lw = 16
		vals := wrapExact(value, max(8, inner-lw))
		for i, v := range vals {
			if i == 0 {
				lines = append(lines, st.Label.Render(padCells(name, lw))+v)
				continue
			}
			lines = append(lines, strings.Repeat(" ", lw)+v)
		}
	}
	add(st.Title.Render("Approve and remember?"))
	add("")
	asks := c.Operation
	if c.Tool != "" {
		asks = "to use " + c.Tool // the rest is the rule below
	}
	add(c.Requester + " asks " + asks)
	add("")
	if r.Refusal != "" {
		for _, l := range wrapWords(r.Refusal, inner) {
			lines = append(lines, st.Warn.Render(l))
		}
		add("")
		add("Nothing is decided here. Close this, then " + keys.Approve.Help().Key + " approves it once, or " +
			keys.Deny.Help().Key + " denies it.")
	} else {
		add("Approves it now, and stores this rule in the prompt registry:")
		add("")
		switch r.Overlay {
		case OverlayClass:
			label("overlay", "class (shared by every persona with the same capabilities)")
			label("class key", r.Key)
		default:
			label("overlay", "persona ("+c.Requester+"'s experience layer)")
			label("stamp hash", r.Key)
		}
		label("handler action", r.Action)
		label("target", r.Target)
		label("shape", r.Shape)
		add("")
		add("A later request matching all of these is approved without asking.")
		add(st.Strong.Render(keys.Confirm.Help().Key) + " approve and store · any other key cancels (nothing is decided)")
	}
	return lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(0, 1).Width(w).
		Render(strings.Join(lines, "\n"))
}

// wrapWords breaks a sentence into lines of at most w cells, at spaces
// where it can and inside long words where it must. Nothing is cut.
func wrapWords(s string, w int) []string {
	if s == "" {
		return []string{""}
	}
	return strings.Split(ansi.Wrap(s, w, ""), "\n")
}

// wrapExact breaks a value (a hash, a path) into lines of exactly w cells
// and a shorter last one: no break at a hyphen or a slash suggests a space
// that is not there. Nothing is cut.
func wrapExact(s string, w int) []string {
	if s == "" {
		return []string{""}
	}
	return strings.Split(ansi.Hardwrap(s, w, true), "\n")
}

// padCells pads s with spaces to w cells.
func padCells(s string, w int) string {
	return s + strings.Repeat(" ", max(0, w-ansi.StringWidth(s)))
}
