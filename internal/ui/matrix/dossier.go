package matrix

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// dossierLines renders the chosen class's dossier from stamp.Dossier: what is
// granted, and what is explicitly not granted, bundle by bundle with tools.
func (m Model) dossierLines(width int) []string {
	p := m.Chosen()
	d := stamp.Dossier(p)
	st := m.styles
	lines := []string{st.Title.Render(fmt.Sprintf("Dossier · %s", p)) + st.Dim.Render(" · roles "+rolesOf(p)), ""}
	lines = append(lines, st.Header.Render("Granted"))
	for _, e := range d.Granted {
		lines = append(lines, st.Good.Render("✓ "+e.Bundle)+st.Dim.Render(" ["+e.Cell+"]"))
		lines = append(lines, indent(strings.Join(e.Tools, ", "), width, lipgloss.NewStyle())...)
		if e.Why != "" {
			lines = append(lines, indent(e.Why, width, st.Dim)...)
		}
	}
	lines = append(lines, "", st.Header.Render("Explicitly not granted"))
	if len(d.NotGranted) == 0 {
		lines = append(lines, st.Dim.Render("  nothing: every bundle of the matrix is granted"))
	}
	for _, e := range d.NotGranted {
		lines = append(lines, st.Bad.Render("✗ "+e.Bundle)+st.Dim.Render(" ["+e.Cell+"]"))
		lines = append(lines, indent(strings.Join(e.Tools, ", "), width, lipgloss.NewStyle())...)
		lines = append(lines, indent(e.Why, width, st.Dim)...)
	}
	return lines
}

// rolesOf lists the address roles the registry stamps with profile p.
func rolesOf(p registry.Profile) string {
	var names []string
	for _, r := range registry.Roles {
		if r.Profile == p {
			names = append(names, r.Name)
		}
	}
	return strings.Join(names, ", ")
}

// indent wraps text to width under a four-space indent (one column short:
// ansi's word wrap can let a hyphen overhang by one).
func indent(text string, width int, st lipgloss.Style) []string {
	const in = "    "
	out := strings.Split(st.Width(max(10, width-len(in)-1)).Render(text), "\n")
	for i := range out {
		out[i] = in + out[i]
	}
	return out
}
