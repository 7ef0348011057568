package ui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// The smallest usable terminal. At 60 columns the tables keep the columns
// an operator decides on (see presenceColumns and queueColumns: the target
// stays whole, the others give way), and 16 lines leave 12 for the view: a
// header, a few rows and a detail pane. Below it the console draws no view
// at all rather than a collapsed one, and no key but quit acts on a row
// the operator cannot see.
const (
	minWidth  = 60
	minHeight = 16
)

// tooSmall says whether the terminal is below the smallest usable size.
func (m *Model) tooSmall() bool { return m.width < minWidth || m.height < minHeight }

// tooSmallScreen says so, with the size it has and the size it needs,
// exactly width×height cells.
func (m *Model) tooSmallScreen() string {
	lines := []string{
		m.styles.Warn.Render("terminal too small"),
		strconv.Itoa(m.width) + "×" + strconv.Itoa(m.height) + ", needs at least " + strconv.Itoa(minWidth) + "×" + strconv.Itoa(minHeight),
		"enlarge the window; " + keyName(m.keys.Quit.Keys()) + " quits",
	}
	var out []string
	for _, l := range lines {
		out = append(out, strings.Split(ansi.Wrap(l, max(1, m.width), " "), "\n")...)
	}
	return fit(strings.Join(out, "\n"), m.width, m.height)
}

// emptyInstallation is the presence view of an installation with no
// persona yet: how to begin, with the operator's own wizard key.
func (m *Model) emptyInstallation(height int) string {
	lines := []string{
		"",
		"  No personas yet: this installation is empty.",
		"",
		"  Press " + m.styles.Strong.Render(keyName(m.keys.Wizard.Keys())) + " to register the first persona, " +
			m.styles.Strong.Render("root/secretary") + ".",
	}
	return fit(strings.Join(lines, "\n"), m.width, height)
}

// keyName is how the screen names a binding: its first key.
func keyName(keys []string) string {
	if len(keys) == 0 {
		return "(unbound)"
	}
	return keys[0]
}
