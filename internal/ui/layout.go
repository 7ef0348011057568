package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// pane renders a detail pane: a rule, then lines cut to width, exactly
// height lines in all (extra lines are dropped, an ellipsis says so).
func pane(st *Styles, lines []string, width, height int) string {
	if height <= 0 {
		return ""
	}
	out := make([]string, 0, height)
	out = append(out, st.Dim.Render(strings.Repeat("─", max(0, width))))
	body := height - 1
	for i, l := range lines {
		if i == body-1 && len(lines) > body {
			out = append(out, st.Dim.Render("…"))
			break
		}
		if i >= body {
			break
		}
		out = append(out, ansi.Truncate(l, width, "…"))
	}
	for len(out) < height {
		out = append(out, "")
	}
	return strings.Join(out, "\n")
}

// fit cuts or pads s to exactly height lines of at most width cells.
func fit(s string, width, height int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > height {
		lines = lines[:height]
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > width {
			lines[i] = ansi.Truncate(l, width, "…")
		}
	}
	for len(lines) < height {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}
