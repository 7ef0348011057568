package matrix

import (
	"fmt"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// compareLines renders the diff from class A to class B (or between the two
// stamps given to CompareStamps) with the stamp package's renderer
// (boundaries crossed, then changes by bundle), coloured by kind of change.
func (m Model) compareLines(int) []string {
	a, b := m.Compared()
	st := m.styles
	d := stamp.DiffProfiles(a, b)
	title := "Compare · A " + string(a) + " → B " + string(b)
	if m.stamps != nil {
		d = stamp.Diff(m.stamps[0], m.stamps[1])
		title = "Compare stamps · A " + stampLabel(m.stamps[0]) + " → B " + stampLabel(m.stamps[1])
	}
	text := strings.TrimRight(stamp.RenderDiff(d), "\n")
	lines := []string{st.Title.Render(title), ""}
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "  + "):
			l = st.Good.Render(l)
		case strings.HasPrefix(l, "  - "):
			l = st.Bad.Render(l)
		case strings.HasPrefix(l, "  ~ "):
			l = st.Caution.Render(l)
		case !strings.HasPrefix(l, " "):
			l = st.Header.Render(l)
		}
		lines = append(lines, l)
	}
	return lines
}

// stampLabel names a stamp by its holder: "Spica (work/core/lead, generation 1)".
func stampLabel(s stamp.Stamp) string {
	if s.Path.Address == "" {
		return stamp.Nothing
	}
	return fmt.Sprintf("%s (%s, generation %d)", s.Persona.Name, s.Path.Address, s.Persona.Generation)
}
