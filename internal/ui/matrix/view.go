package matrix

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// lines is the whole content of the current mode at a width.
func (m Model) lines(width int) []string {
	switch m.mode {
	case modeDossier:
		return m.dossierLines(width)
	case modeCompare:
		return m.compareLines(width)
	}
	return m.matrixLines(width)
}

// View renders the current mode into exactly width×height cells, the
// visible lines only, with the footer help unless the shell shows its own.
func (m Model) View(width, height int) string {
	width, height = max(width, 20), max(height, 3)
	footer := ""
	if !m.hideHelp {
		h := m.help
		h.SetWidth(width)
		footer = h.ShortHelpView(m.ShortHelp())
	}
	room := height - lipgloss.Height(footer)
	if footer == "" {
		room = height
	}
	all := m.lines(width)
	off := max(0, min(m.offset[m.mode], len(all)-room))
	visible := make([]string, 0, room)
	for _, l := range all[off:min(len(all), off+room)] {
		if ansi.StringWidth(l) > width {
			l = ansi.Truncate(l, width, "…")
		}
		visible = append(visible, l)
	}
	for len(visible) < room {
		visible = append(visible, "")
	}
	body := strings.Join(visible, "\n")
	if footer == "" {
		return body
	}
	return body + "\n" + footer
}
