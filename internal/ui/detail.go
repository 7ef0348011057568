package ui

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/virgo-hub/virgo-tui/internal/ui/keymap"
)

// field is one labelled value of a detail pane. The label is written as
// given (views pad their labels to one width); a value too long for the
// line wraps under itself, so nothing an operator approves is cut.
type field struct {
	label, value string
}

// detailPane is the state of a view's detail pane: closed, open under the
// table, or zoomed to the whole body. While it is open the movement keys
// scroll it; the table's selection stays where the operator left it, so
// the pane always shows the row a decision key acts on.
type detailPane struct {
	open, zoomed bool
	// top is the first wrapped line shown; subject is the row it belongs
	// to (another row starts at its first line).
	top     int
	subject string
}

// wrapFields renders fields as lines of at most width cells: each value
// wraps at spaces, slashes and hyphens (a target, a URL, a diff line), and
// its continuation lines are indented under the value.
func wrapFields(st *Styles, fs []field, width int) []string {
	var out []string
	for _, f := range fs {
		lw := ansi.StringWidth(f.label)
		vw := width - lw
		if vw < 8 { // a label wider than the screen: value on its own lines
			out = append(out, ansi.Truncate(st.Label.Render(f.label), width, "…"))
			lw, vw = 0, width
			if f.value == "" {
				continue
			}
		}
		label := st.Label.Render(f.label)
		if lw == 0 {
			label = ""
		}
		if f.value == "" {
			out = append(out, label)
			continue
		}
		indent := spaces(lw)
		for i, l := range strings.Split(ansi.Wrap(f.value, vw, "/ _:."), "\n") {
			if i == 0 {
				out = append(out, label+l)
			} else {
				out = append(out, indent+l)
			}
		}
	}
	return out
}

// show points the pane at subject; a new subject starts at its top.
func (d *detailPane) show(subject string) {
	if subject != d.subject {
		d.subject, d.top = subject, 0
	}
}

// under is the height of an open, unzoomed pane below a table in a body
// of height lines: num/den of the body.
func (d *detailPane) under(height, num, den int) int {
	if !d.open {
		return 0
	}
	return height * num / den
}

// paneBody is how many lines of content a pane of height lines shows (the
// first line is its rule).
func paneBody(height int) int { return max(0, height-1) }

// scroll moves the pane by delta lines within n lines of content shown
// body lines at a time.
func (d *detailPane) scroll(delta, n, body int) {
	d.top = max(0, min(d.top+delta, n-body))
}

// enter opens the pane; pressed again it widens the pane to the whole
// body, and a third time narrows it back.
func (d *detailPane) enter() {
	if !d.open {
		d.open = true
		return
	}
	d.zoomed = !d.zoomed
}

// zoom widens the pane to the whole body, opening it if closed, or
// narrows it back.
func (d *detailPane) zoom() {
	if !d.open {
		d.open, d.zoomed = true, true
		return
	}
	d.zoomed = !d.zoomed
}

// back closes one level: zoomed to open, open to closed. It reports
// whether there was a level to close.
func (d *detailPane) back() bool {
	switch {
	case d.zoomed:
		d.zoomed = false
	case d.open:
		d.open = false
		d.top = 0
	default:
		return false
	}
	return true
}

// paneKeys scrolls an open pane of n lines shown body at a time, half a
// pane a key, with its own keys (pane_up, pane_down); it reports whether
// the key was one of them.
func paneKeys(k keymap.KeyMap, d *detailPane, msg tea.KeyPressMsg, n, body int) bool {
	switch {
	case key.Matches(msg, k.PaneUp):
		d.scroll(-max(1, body/2), n, body)
	case key.Matches(msg, k.PaneDown):
		d.scroll(max(1, body/2), n, body)
	default:
		return false
	}
	return true
}

// view renders the pane: a rule naming what it shows and which lines are
// in sight, then the lines from top, exactly height lines of at most width
// cells.
func (d *detailPane) view(st *Styles, title string, lines []string, width, height int) string {
	if height <= 0 {
		return ""
	}
	body := paneBody(height)
	d.top = max(0, min(d.top, len(lines)-body))
	out := make([]string, 0, height)
	out = append(out, paneRule(st, title, d.top, len(lines), body, width))
	for i := d.top; i < len(lines) && len(out) < height; i++ {
		out = append(out, ansi.Truncate(lines[i], width, "…"))
	}
	for len(out) < height {
		out = append(out, "")
	}
	return strings.Join(out, "\n")
}

// paneRule is the pane's top line: "── title ──…── lines 3–12 of 20 ↕ ──"
// when the content is longer than the pane, so the operator knows there
// is more to read before deciding.
func paneRule(st *Styles, title string, top, n, body, width int) string {
	left := "── " + title + " "
	right := ""
	if n > body {
		right = " lines " + strconv.Itoa(top+1) + "–" + strconv.Itoa(min(n, top+body)) + " of " + strconv.Itoa(n)
		switch {
		case top == 0:
			right += " ↓"
		case top+body >= n:
			right += " ↑"
		default:
			right += " ↕"
		}
		right += " ──"
	}
	fill := width - ansi.StringWidth(left) - ansi.StringWidth(right)
	if fill < 2 {
		return st.Dim.Render(ansi.Truncate(left+strings.Repeat("─", max(0, width)), width, ""))
	}
	return st.Dim.Render(left + strings.Repeat("─", fill) + right)
}
