package matrix

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// legend is the spec's key to the marks: "R means read/use, W means mutate
// within stamped scope, C means the tool is exposed but requires confirmation
// for the described boundary, and - means it is not exposed."
const legend = "R read/use · W mutate within stamped scope · C exposed, requires confirmation · - not exposed"

// qualifierMarks stand in for a cell's parenthesised limit when the table is
// too narrow to spell it out; the limit is then listed under the table.
var qualifierMarks = []string{"ᵃ", "ᵇ", "ᶜ", "ᵈ", "ᵉ"}

// layout is one way of fitting the table: full headers and cells, or short
// headers with qualifiers moved under the table.
type layout struct {
	headers []string
	cells   [][]string // [bundle][class]
	notes   []string   // qualifier notes, compact layout only
}

// shortName abbreviates a profile to its last word (team-coordinator ->
// coordinator, coder-deputy -> deputy), still a word an operator knows.
func shortName(p registry.Profile) string {
	s := string(p)
	if i := strings.LastIndexByte(s, '-'); i >= 0 {
		return s[i+1:]
	}
	return s
}

func fullLayout() layout {
	var l layout
	for _, p := range registry.Profiles {
		l.headers = append(l.headers, string(p))
	}
	for _, b := range stamp.Bundles() {
		row := make([]string, 0, len(registry.Profiles))
		for _, p := range registry.Profiles {
			row = append(row, stamp.CellText(stamp.CellFor(b, p)))
		}
		l.cells = append(l.cells, row)
	}
	return l
}

func compactLayout() layout {
	var l layout
	for _, p := range registry.Profiles {
		l.headers = append(l.headers, shortName(p))
	}
	marks := map[string]string{}
	for _, b := range stamp.Bundles() {
		row := make([]string, 0, len(registry.Profiles))
		for _, p := range registry.Profiles {
			c := stamp.CellFor(b, p)
			q := c.Qualifier
			c.Qualifier = ""
			text := stamp.CellText(c)
			if q != "" {
				if _, ok := marks[q]; !ok && len(marks) < len(qualifierMarks) {
					marks[q] = qualifierMarks[len(marks)]
					l.notes = append(l.notes, marks[q]+" "+q)
				}
				text += marks[q]
			}
			row = append(row, text)
		}
		l.cells = append(l.cells, row)
	}
	return l
}

// widths are the column widths of a layout: bundle names, then each class.
func (l layout) widths() []int {
	w := make([]int, len(l.headers)+1)
	w[0] = lipgloss.Width("Capability bundle")
	for _, b := range stamp.Bundles() {
		w[0] = max(w[0], lipgloss.Width(b.Name))
	}
	for j, h := range l.headers {
		w[j+1] = lipgloss.Width(h)
		for _, row := range l.cells {
			w[j+1] = max(w[j+1], lipgloss.Width(row[j]))
		}
	}
	return w
}

const gap = "  "

func total(w []int) int {
	n := len(gap) * (len(w) - 1)
	for _, x := range w {
		n += x
	}
	return n
}

// matrixLines renders the class matrix into width: full when it fits,
// otherwise short class headers with qualifiers as noted marks, and bundle
// names truncated only if even that does not fit.
func (m Model) matrixLines(width int) []string {
	l := fullLayout()
	w := l.widths()
	if total(w) > width {
		l = compactLayout()
		w = l.widths()
		w[0] = max(12, w[0]-max(0, total(w)-width))
	}
	st := m.styles
	pad := func(s string, n int) string { return s + strings.Repeat(" ", max(0, n-lipgloss.Width(s))) }
	head := pad(st.Header.Render("Capability bundle"), w[0])
	for j, h := range l.headers {
		hs := st.Header
		if j == m.class {
			hs = st.TabOn
		}
		head += gap + hs.Render(pad(h, w[j+1]))
	}
	lines := []string{st.Title.Render("Class matrix"), "", head, st.Dim.Render(strings.Repeat("─", min(width, total(w))))}
	for i, b := range stamp.Bundles() {
		line := pad(ansi.Truncate(b.Name, w[0], "…"), w[0])
		for j, c := range l.cells[i] {
			line += gap + m.cellStyle(c).Render(pad(c, w[j+1]))
		}
		lines = append(lines, line)
	}
	lines = append(lines, "")
	// One column short: ansi's word wrap can let a hyphen overhang by one.
	wrap := lipgloss.NewStyle().Width(max(1, width-1))
	for _, n := range packNotes(l.notes, width) {
		lines = append(lines, st.Dim.Render(n))
	}
	for _, f := range stamp.Footnotes() {
		lines = append(lines, strings.Split(st.Dim.Inherit(wrap).Render(superscript(f.N)+" "+f.Text), "\n")...)
	}
	lines = append(lines, strings.Split(st.Dim.Inherit(wrap).Render(legend), "\n")...)
	return lines
}

// packNotes puts the marks' notes side by side, as many whole notes to a
// line of width as fit: the compact layout is for small screens, where a
// line each pushed the last notes off the first screen (at 80×24, "ᵇ bound
// surfaces" once the table grew a row).
func packNotes(notes []string, width int) []string {
	const sep = " · "
	var out []string
	for _, n := range notes {
		if last := len(out) - 1; last >= 0 && ansi.StringWidth(out[last]+sep+n) <= width {
			out[last] += sep + n
			continue
		}
		out = append(out, n)
	}
	return out
}

// superscript is the footnote mark as the table prints it (CellText of a
// bare footnoted cell, minus the mark).
func superscript(n int) string {
	return strings.TrimPrefix(stamp.CellText(stamp.Cell{Mark: stamp.MarkNone, Note: n}), string(stamp.MarkNone))
}

func (m Model) cellStyle(text string) lipgloss.Style {
	switch {
	case text == string(stamp.MarkNone):
		return m.styles.Dim
	case strings.HasPrefix(text, string(stamp.MarkConfirm)):
		return m.styles.Caution
	}
	return lipgloss.NewStyle()
}
