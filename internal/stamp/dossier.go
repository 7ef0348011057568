package stamp

import "github.com/virgo-hub/virgo-tui/internal/registry"

// DossierEntry is one bundle's line of a dossier.
type DossierEntry struct {
	Bundle string `json:"bundle"`
	// Cell is the class's matrix cell as the spec writes it ("W¹").
	Cell  string   `json:"cell"`
	Tools []string `json:"tools"`
	// Why says what limits the entry (a footnote, read-only, not exposed).
	Why string `json:"why,omitempty"`
}

// ClassDossier is a class's capabilities in the spirit of novelgraph's role
// dossiers: what is granted, and what is explicitly not granted.
type ClassDossier struct {
	Profile    registry.Profile `json:"profile"`
	Granted    []DossierEntry   `json:"granted"`
	NotGranted []DossierEntry   `json:"not_granted"`
}

// Dossier reads a class's dossier from the table. A granted tool that needs
// confirmation is listed as "name (confirm)".
func Dossier(p registry.Profile) ClassDossier {
	d := ClassDossier{Profile: p}
	for _, b := range bundles {
		cell := CellFor(b, p)
		var granted, denied []string
		for _, t := range b.Tools {
			switch {
			case !exposes(cell, t):
				denied = append(denied, t.Name)
			case cell.Mark == MarkConfirm:
				granted = append(granted, t.Name+" (confirm)")
			default:
				granted = append(granted, t.Name)
			}
		}
		text := CellText(cell)
		if len(granted) > 0 {
			d.Granted = append(d.Granted, DossierEntry{Bundle: b.Name, Cell: text, Tools: granted, Why: footnoteText(cell.Note)})
		}
		if len(denied) > 0 {
			why := "not exposed to " + string(p)
			if len(granted) > 0 {
				why = "read-only for " + string(p) + "; its writes are not exposed"
			}
			d.NotGranted = append(d.NotGranted, DossierEntry{Bundle: b.Name, Cell: text, Tools: denied, Why: why})
		}
	}
	return d
}

func footnoteText(n int) string {
	for _, f := range footnotes {
		if f.N == n {
			return f.Text
		}
	}
	return ""
}
