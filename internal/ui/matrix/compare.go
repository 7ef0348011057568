package matrix

import (
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// compareLines renders the diff from class A to class B with the stamp
// package's renderer (boundaries crossed, then changes by bundle), coloured
// by the kind of change.
func (m Model) compareLines(int) []string {
	a, b := m.Compared()
	st := m.styles
	text := strings.TrimRight(stamp.RenderDiff(stamp.DiffProfiles(a, b)), "\n")
	lines := []string{st.Title.Render("Compare · A " + string(a) + " → B " + string(b)), ""}
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "  + "):
			l = st.Added.Render(l)
		case strings.HasPrefix(l, "  - "):
			l = st.Removed.Render(l)
		case strings.HasPrefix(l, "  ~ "):
			l = st.Changed.Render(l)
		case !strings.HasPrefix(l, " "):
			l = st.Heading.Render(l)
		}
		lines = append(lines, l)
	}
	return lines
}
