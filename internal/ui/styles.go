package ui

import "github.com/virgo-hub/virgo-tui/internal/ui/styles"

// Styles is the console's one style sheet (styles.Styles, the same value
// the wizard and the matrix view are given) with the paints the tables
// render rows with, derived from it once.
type Styles struct {
	*styles.Styles

	header   paint
	selected paint
	changed  paint
	dim      paint
	plain    paint
	presence map[PresenceState]paint
}

// newStyles derives the tables' paints from the sheet.
func newStyles(sheet *styles.Styles) *Styles {
	p := sheet.Presence
	return &Styles{
		Styles:   sheet,
		header:   paintOf(sheet.Header),
		selected: paintOf(sheet.Selected),
		changed:  paintOf(sheet.Changed),
		dim:      paintOf(sheet.Dim),
		presence: map[PresenceState]paint{
			PresenceStanding: paintOf(p.Standing),
			PresenceActive:   paintOf(p.Active),
			PresenceIdle:     paintOf(p.Idle),
			PresenceStale:    paintOf(p.Stale),
			PresenceOffline:  paintOf(p.Offline),
			PresenceRetired:  paintOf(p.Retired),
		},
	}
}
