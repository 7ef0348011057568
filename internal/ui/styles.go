package ui

import "charm.land/lipgloss/v2"

// Styles is the console's one style sheet. Colours are written in full and
// the Bubble Tea renderer downsamples them to the terminal's colour profile
// (and drops them under NO_COLOR), so nothing here checks the terminal.
// Every meaning carried by colour is also carried by text (a marker, a word,
// a dimmed row's note), so the console reads the same without colour.
type Styles struct {
	Title     lipgloss.Style
	TabOn     lipgloss.Style
	TabOff    lipgloss.Style
	Status    lipgloss.Style
	StatusKey lipgloss.Style
	Error     lipgloss.Style
	Note      lipgloss.Style
	Warn      lipgloss.Style
	Dim       lipgloss.Style
	Label     lipgloss.Style
	Pane      lipgloss.Style

	header   paint
	selected paint
	changed  paint
	dim      paint
	plain    paint
	presence map[PresenceState]paint
}

// DefaultStyles returns the console's style sheet.
func DefaultStyles() *Styles {
	accent := lipgloss.Color("#7D56F4")
	muted := lipgloss.Color("#8A8A8A")
	s := &Styles{
		Title:     lipgloss.NewStyle().Bold(true).Foreground(accent),
		TabOn:     lipgloss.NewStyle().Bold(true).Reverse(true),
		TabOff:    lipgloss.NewStyle().Foreground(muted),
		Status:    lipgloss.NewStyle().Foreground(lipgloss.Color("#C8C8C8")),
		StatusKey: lipgloss.NewStyle().Bold(true),
		Error:     lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("#FF5F5F")),
		Note:      lipgloss.NewStyle().Foreground(lipgloss.Color("#5FAFFF")),
		Warn:      lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("#FFAF00")),
		Dim:       lipgloss.NewStyle().Foreground(muted),
		Label:     lipgloss.NewStyle().Foreground(muted),
		Pane:      lipgloss.NewStyle().BorderStyle(lipgloss.NormalBorder()).BorderLeft(true).PaddingLeft(1),
	}
	s.header = paintOf(lipgloss.NewStyle().Bold(true).Underline(true))
	s.selected = paintOf(lipgloss.NewStyle().Reverse(true))
	s.changed = paintOf(lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("#000000")).Background(lipgloss.Color("#FFD75F")))
	s.dim = paintOf(s.Dim)
	s.presence = map[PresenceState]paint{
		PresenceStanding: paintOf(lipgloss.NewStyle().Foreground(lipgloss.Color("#87AFD7"))),
		PresenceActive:   paintOf(lipgloss.NewStyle().Foreground(lipgloss.Color("#5FD75F"))),
		PresenceIdle:     paintOf(lipgloss.NewStyle().Foreground(lipgloss.Color("#D7D75F"))),
		PresenceStale:    paintOf(lipgloss.NewStyle().Foreground(lipgloss.Color("#FFAF00"))),
		PresenceOffline:  paintOf(lipgloss.NewStyle().Foreground(muted)),
		PresenceRetired:  paintOf(lipgloss.NewStyle().Foreground(muted).Strikethrough(true)),
	}
	return s
}
