package wizard

import (
	"fmt"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// diffLines renders the class-matrix diff of the preview with the stamp
// package's own renderer (boundaries crossed first, then the changes by
// bundle), and a one-line summary for the preview's header. The diff is
// taken against the seat's previous generation, or against nothing.
func diffLines(p Preview) ([]string, string) {
	var prev stamp.Stamp
	against := stamp.Nothing + " (new seat)"
	if p.Previous != nil {
		prev = *p.Previous
		against = fmt.Sprintf("generation %d (%s)", p.Previous.Persona.Generation, p.Previous.Persona.Name)
	}
	d := stamp.Diff(prev, p.Stamp)
	text := stamp.RenderDiff(d)
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if d.Empty() {
		return lines, "diff vs " + against + ": no change"
	}
	var added, removed, changed int
	for _, b := range d.Bundles {
		for _, c := range b.Changes {
			switch c.Kind {
			case stamp.Added:
				added++
			case stamp.Removed:
				removed++
			case stamp.Changed:
				changed++
			}
		}
	}
	return lines, fmt.Sprintf("diff vs %s: +%d -%d ~%d tools, %d bindings, %d boundaries crossed",
		against, added, removed, changed, len(d.Bindings), len(d.Crossings))
}
