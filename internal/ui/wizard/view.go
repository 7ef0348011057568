package wizard

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// questions introduce each step in the spec's words.
var questions = [choiceSteps]string{
	"Scope: an existing scope, root (reserved installation-wide seats), or type a new one.",
	"Project (optional): project absence means scope-wide.",
	"Role: only roles whose binding arity fits this address are offered.",
	"Name: the owner-facing identity, for life. Free Virgo-constellation names are suggested.",
}

// View renders the wizard into exactly width×height cells (the shell's
// body, or the whole terminal under Run).
func (m Model) View(width, height int) string {
	width, height = max(width, minWidth), max(height, minHeight)
	var body []string
	switch {
	case m.loading && m.err != nil:
		body = []string{m.title(), "", "The installation could not be read; esc leaves the wizard."}
	case m.loading:
		body = []string{m.title(), "", "reading the installation…"}
	case m.step == stepPreview:
		body = m.previewView(width, height-m.footerHeight(width))
	case m.step == stepSubmitted:
		body = m.submittedView(width)
	default:
		body = m.choiceView(width, height-m.footerHeight(width))
	}
	if m.err != nil {
		body = append(body, "", m.styles.Error.Width(wrapWidth(width)).Render("✗ "+m.err.Error()))
	}
	out := frame(body, width, height-m.footerHeight(width))
	if m.hideHelp {
		return out
	}
	return out + "\n" + frame([]string{m.footer(width)}, width, m.footerHeight(width))
}

// The smallest size the wizard renders into; a smaller one is drawn at this
// size and cut by the terminal.
const (
	minWidth  = 20
	minHeight = 6
)

// frame lays lines (each possibly several) into exactly width×height:
// longer lines are cut, missing lines are blank. It measures each line once,
// which keeps a frame cheap enough to redraw on every keystroke.
func frame(lines []string, width, height int) string {
	out := make([]string, 0, height)
	for _, l := range lines {
		for _, part := range strings.Split(l, "\n") {
			if len(out) == height {
				return strings.Join(out, "\n")
			}
			if ansi.StringWidth(part) > width {
				part = ansi.Truncate(part, width, "…")
			}
			out = append(out, part)
		}
	}
	for len(out) < height {
		out = append(out, "")
	}
	return strings.Join(out, "\n")
}

func (m Model) footerHeight(width int) int {
	if m.hideHelp {
		return 0
	}
	return lipgloss.Height(m.footer(width))
}

func (m Model) footer(width int) string {
	h := m.help
	h.SetWidth(width)
	return h.View(m) // the short line, or every key after ?
}

func (m Model) title() string {
	s := m.step
	t := "persona add · " + stepTitles[s]
	if s < stepPreview {
		t = fmt.Sprintf("persona add · step %d of %d · %s", s+1, choiceSteps, stepTitles[s])
	}
	return m.styles.Title.Render(t)
}

// crumbs shows every answer so far, in path order.
func (m Model) crumbs() string {
	parts := []struct {
		label, value string
		skip         bool
	}{
		{"scope", m.answers.Scope, false},
		{"project", m.answers.Project, m.answers.Scope == registry.RootScope},
		{"role", m.answers.Role, false},
		{"name", m.name, false},
	}
	var out []string
	for i, p := range parts {
		v, st := p.value, m.styles.Note
		switch {
		case p.skip:
			v, st = "none", m.styles.Dim
		case step(i) >= m.step && m.step < stepPreview || v == "":
			v, st = "—", m.styles.Dim
			if step(i) == stepProject && m.step > stepProject {
				v = "none"
			}
		}
		out = append(out, m.styles.Dim.Render(p.label+" ")+st.Render(v))
	}
	return strings.Join(out, m.styles.Dim.Render("  ›  "))
}

// choiceView is one of the four answer steps: question, input, verdict and
// the offered options around the highlighted one.
func (m Model) choiceView(width, height int) []string {
	s := m.step
	lines := []string{m.title(), m.crumbs(), "", m.styles.Strong.Width(wrapWidth(width)).Render(questions[s])}
	in := m.inputs[s]
	in.SetWidth(max(10, width-len(in.Prompt)-2))
	lines = append(lines, in.View())
	if m.note != "" {
		lines = append(lines, m.styles.Dim.Width(wrapWidth(width)).Render(m.note))
	}
	lines = append(lines, m.verdict(width)...)
	if o, ok := m.current(s); ok && s == stepRole && o.err == nil {
		r, _ := registry.LookupRole(o.value)
		lines = append(lines, m.styles.Dim.Width(wrapWidth(width)).Render("  "+r.Name+": "+r.Duty))
	}
	lines = append(lines, "")
	rows := m.options(s)
	room := height - len(lines) - 1
	if m.err != nil {
		room -= 2
	}
	first, last := visibleRange(len(rows), min(m.cursor[s], len(rows)-1), max(1, room))
	labelW := 0
	for _, o := range rows {
		labelW = max(labelW, lipgloss.Width(o.label))
	}
	for i := first; i < last; i++ {
		o := rows[i]
		label := o.label + strings.Repeat(" ", labelW-lipgloss.Width(o.label))
		mark := "  "
		if i == m.cursor[s] || i == len(rows)-1 && m.cursor[s] >= len(rows) {
			mark, label = "▸ ", m.styles.Selected.Render(label)
		}
		lines = append(lines, mark+label+"  "+m.styles.Dim.Render(o.detail))
	}
	if first > 0 || last < len(rows) {
		lines = append(lines, m.styles.Dim.Render(fmt.Sprintf("  %d–%d of %d", first+1, last, len(rows))))
	}
	return lines
}

// verdict says, as the operator types, whether enter will be accepted and
// why not: the registry's refusal, word for word.
func (m Model) verdict(width int) []string {
	o, ok := m.current(m.step)
	switch refusal := m.refusal(m.step); {
	case refusal != nil:
		return strings.Split(m.styles.Error.Width(wrapWidth(width)).Render("✗ "+refusal.Error()), "\n")
	case !ok:
		return []string{m.styles.Dim.Render("  nothing to choose: type a value")}
	}
	return []string{m.styles.Good.Render("✓ " + m.acceptance(o))}
}

// acceptance describes what choosing o means.
func (m Model) acceptance(o option) string {
	switch m.step {
	case stepScope:
		if o.typed {
			return fmt.Sprintf("new scope %s", o.value)
		}
		return "scope " + o.value
	case stepProject:
		if o.value == "" {
			return "no project: the role is scope-wide"
		}
		if o.typed {
			return "new project " + m.answers.Scope + "/" + o.value
		}
		return "project " + m.answers.Scope + "/" + o.value
	case stepRole:
		a := m.answers
		a.Role = o.value
		return "address " + a.String()
	}
	return "name " + o.value
}

// visibleRange is the window of n rows of the given height that shows cur.
func visibleRange(n, cur, height int) (int, int) {
	if n <= height {
		return 0, n
	}
	first := max(0, min(cur-height/2, n-height))
	return first, first + height
}

// previewView shows the address, the summary of the diff and the two panes:
// side by side when there is room, otherwise the focused one.
func (m Model) previewView(width, height int) []string {
	lines := m.previewHead()
	p := m.preview
	if p == nil {
		return append(lines, "", "building the stamp…")
	}
	paneH := m.paneRows(height) + 1 // and the pane's header
	if width >= 110 {
		half := (width - 3) / 2
		left := m.pane(p, paneStamp, half, paneH)
		right := m.pane(p, paneDiff, width-3-half, paneH)
		for i := range left {
			lines = append(lines, left[i]+" │ "+right[i])
		}
		return lines
	}
	return append(lines, m.pane(p, p.focus, width, paneH)...)
}

// previewHead is the lines above the panes: title, address, the diff's
// summary and what is under way.
func (m Model) previewHead() []string {
	reg := m.Registration()
	role, _ := reg.Address.RoleInfo()
	lines := []string{m.title(),
		fmt.Sprintf("address %s · name %s · profile %s (%s)", reg.Address, reg.Name, role.Profile, role.Arity)}
	p := m.preview
	if p == nil {
		return lines
	}
	lines = append(lines, m.styles.Warn.Render(p.summary))
	if m.submitting {
		lines = append(lines, m.styles.Warn.Render("submitting…"))
	}
	if p.stampErr != nil {
		lines = append(lines, m.styles.Error.Render("✗ "+p.stampErr.Error()))
	}
	return lines
}

// paneRows is how many lines of a pane show in a preview body of the given
// height: what the head, a blank line, an error and the pane's header leave.
func (m Model) paneRows(height int) int {
	h := max(1, height-len(m.previewHead())-1)
	if m.err != nil {
		h = max(1, h-2)
	}
	return max(1, h-1)
}

var paneTitles = [2]string{"stamp · " + "CAPABILITY-STAMP.json", "class-matrix diff"}

// pane renders one pane with its header as exactly height lines of exactly
// width cells; the focused pane's header is lit.
func (m Model) pane(p *previewState, which pane, width, height int) []string {
	head := m.styles.TabOff.Render(" " + paneTitles[which] + " ")
	if which == p.focus {
		head = m.styles.TabOn.Render(" " + paneTitles[which] + " ")
	}
	head += m.styles.Dim.Render(fmt.Sprintf(" %d lines", len(p.lines[which])))
	lines := make([]string, 0, height)
	for _, l := range append([]string{head}, p.window(which, height-1)...) {
		w := ansi.StringWidth(l)
		if w > width {
			l, w = ansi.Truncate(l, width, "…"), width
		}
		lines = append(lines, l+strings.Repeat(" ", width-w))
	}
	for len(lines) < height {
		lines = append(lines, strings.Repeat(" ", width))
	}
	return lines
}

func (m Model) submittedView(width int) []string {
	reg, s := m.Registration(), m.submitted
	w := lipgloss.NewStyle().Width(wrapWidth(width))
	lines := []string{m.title(), "",
		w.Render(fmt.Sprintf("%s (%s) is registered and waits for activation.", reg.Address, reg.Name)),
		w.Render("Activation confirmation " + s.ConfirmationID + " is queued."), ""}
	switch {
	case m.approved:
		lines = append(lines, m.styles.Good.Render("✓ approved: the activation is decided."))
	case m.approving:
		lines = append(lines, m.styles.Warn.Render("approving…"))
	case s.OperatorIsBoundHuman:
		lines = append(lines, m.styles.Warn.Width(wrapWidth(width)).Render(fmt.Sprintf(
			"You are the bound human: press %s to approve it now, or %s to leave it pending in the approval queue.",
			m.keys.Approve.Help().Key, m.keys.Finish.Help().Key)))
	default:
		lines = append(lines, w.Render("It waits for its bound human in the approval queue."))
	}
	return lines
}

// wrapWidth is the width text is word-wrapped to: one column short, because
// ansi's word wrap can let a hyphen at the break overhang the limit by one.
func wrapWidth(width int) int { return max(1, width-1) }
