package stamp

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// Plain-text renderings shared by the CLI and the console. No styling here:
// the console wraps these strings in its own styles.

var superscripts = map[int]string{1: "¹", 2: "²", 3: "³"}

// CellText renders a cell the way the spec's table writes it: "W¹",
// "W (bound surfaces)", "R/W (assigned task)", "-".
func CellText(c Cell) string {
	s := string(c.Mark)
	if c.Note != 0 {
		if sup, ok := superscripts[c.Note]; ok {
			s += sup
		} else {
			s += fmt.Sprintf("^%d", c.Note)
		}
	}
	if c.Qualifier != "" {
		s += " (" + c.Qualifier + ")"
	}
	return s
}

// RenderMatrix renders the class matrix as the spec's table, with its
// footnotes, from the table.
func RenderMatrix() string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "Capability bundle")
	for _, p := range registry.Profiles {
		fmt.Fprint(tw, "\t", p)
	}
	fmt.Fprintln(tw)
	for _, bu := range bundles {
		fmt.Fprint(tw, bu.Name)
		for _, p := range registry.Profiles {
			fmt.Fprint(tw, "\t", CellText(CellFor(bu, p)))
		}
		fmt.Fprintln(tw)
	}
	_ = tw.Flush() // writes to a strings.Builder cannot fail
	b.WriteString("\n")
	for _, f := range footnotes {
		fmt.Fprintf(&b, "%s %s\n", superscripts[f.N], f.Text)
	}
	return b.String()
}

// RenderInventory renders the tool inventory grouped as the spec's "Required
// tool inventory" lists it, each tool with its handler action.
func RenderInventory() string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "group\ttool\thandler_action\tkind\tshapes\ttargets\tdefault scope\tbundle")
	for _, t := range inventory {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.Group, t.Name, t.HandlerAction, t.Kind,
			joined(t.Shapes), joined(t.Reaches), t.Scope, t.Bundle)
	}
	_ = tw.Flush()
	return b.String()
}

// RenderDiff renders a diff: the boundaries crossed first, then the changes
// grouped by bundle.
func RenderDiff(d MatrixDiff) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s -> %s\n", d.From, d.To)
	if d.Empty() {
		b.WriteString("  no change: both carry the same tools and bindings\n")
		return b.String()
	}
	if len(d.Crossings) > 0 {
		b.WriteString("boundaries crossed:\n")
		for _, c := range d.Crossings {
			b.WriteString("  " + c.String() + "\n")
		}
	}
	if len(d.Bindings) > 0 {
		b.WriteString("bindings:\n")
		for _, c := range d.Bindings {
			fmt.Fprintf(&b, "  %s: %s -> %s\n", c.Field, c.From, c.To)
		}
	}
	for _, bc := range d.Bundles {
		b.WriteString(bc.Bundle + ":\n")
		for _, c := range bc.Changes {
			switch c.Kind {
			case Added:
				fmt.Fprintf(&b, "  + %s (%s, %s)\n", c.Tool, c.To.Access, c.To.Scope)
			case Removed:
				fmt.Fprintf(&b, "  - %s (%s, %s)\n", c.Tool, c.From.Access, c.From.Scope)
			case Changed:
				fmt.Fprintf(&b, "  ~ %s (%s, %s) -> (%s, %s)\n", c.Tool, c.From.Access, c.From.Scope, c.To.Access, c.To.Scope)
			}
		}
	}
	return b.String()
}

// RenderDossier renders a class dossier: granted, then explicitly not granted.
func RenderDossier(d ClassDossier) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\ngranted:\n", d.Profile)
	for _, e := range d.Granted {
		fmt.Fprintf(&b, "  %s [%s]: %s\n", e.Bundle, e.Cell, strings.Join(e.Tools, ", "))
		if e.Why != "" {
			fmt.Fprintf(&b, "    %s\n", e.Why)
		}
	}
	b.WriteString("explicitly not granted:\n")
	for _, e := range d.NotGranted {
		fmt.Fprintf(&b, "  %s [%s]: %s (%s)\n", e.Bundle, e.Cell, strings.Join(e.Tools, ", "), e.Why)
	}
	return b.String()
}

// joined lists words with commas.
func joined[S ~string](words []S) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = string(w)
	}
	return strings.Join(out, ",")
}
