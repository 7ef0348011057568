// Package styles is the console's one style sheet. The shell builds one
// Styles value and passes the same pointer to every view it hosts (the
// presence and queue tables, the persona add wizard, the class-matrix view),
// as Charm's crush passes its common context, so a colour means the same
// thing on every screen and a theme changes in one place.
package styles

import "charm.land/lipgloss/v2"

// Styles is the style sheet. Colours are written in full and the Bubble Tea
// renderer downsamples them to the terminal's colour profile (and drops them
// under NO_COLOR), so nothing here checks the terminal. Every meaning carried
// by colour is also carried by text (a marker, a word, ✓ or ✗), so the
// console reads the same without colour. Only colours and attributes live
// here: sizes belong to the views.
type Styles struct {
	// Title is a view's or the console's name.
	Title lipgloss.Style
	// TabOn and TabOff are the current and the other choices of a switcher
	// (the view tabs, the wizard's preview panes).
	TabOn, TabOff lipgloss.Style
	// Strong is emphasis without a tone: a count, an address, a question.
	Strong lipgloss.Style
	// Error is a refusal or a failure; Warn needs attention; Note informs.
	Error, Warn, Note lipgloss.Style
	// Dim is secondary text; Label names a value.
	Dim, Label lipgloss.Style
	// Header is a column or section header; Selected the row or choice
	// under the cursor; Changed a cell that just changed.
	Header, Selected, Changed lipgloss.Style
	// Good is granted or accepted, Bad withheld or removed, Caution needs a
	// confirmation or changed meaning.
	Good, Bad, Caution lipgloss.Style
	// Presence colours a persona's presence state.
	Presence Presence
}

// Presence styles the presence states, one each.
type Presence struct {
	Standing, Active, Idle, Stale, Offline, Retired lipgloss.Style
}

// Default returns the console's style sheet.
func Default() *Styles {
	accent := lipgloss.Color("#7D56F4")
	muted := lipgloss.Color("#8A8A8A")
	green := lipgloss.Color("#5FD75F")
	red := lipgloss.Color("#FF5F5F")
	amber := lipgloss.Color("#FFAF00")
	yellow := lipgloss.Color("#D7D75F")
	s := lipgloss.NewStyle
	return &Styles{
		Title:    s().Bold(true).Foreground(accent),
		TabOn:    s().Bold(true).Reverse(true),
		TabOff:   s().Foreground(muted),
		Strong:   s().Bold(true),
		Error:    s().Bold(true).Foreground(red),
		Warn:     s().Bold(true).Foreground(amber),
		Note:     s().Foreground(lipgloss.Color("#5FAFFF")),
		Dim:      s().Foreground(muted),
		Label:    s().Foreground(muted),
		Header:   s().Bold(true).Underline(true),
		Selected: s().Reverse(true),
		Changed:  s().Bold(true).Foreground(lipgloss.Color("#000000")).Background(lipgloss.Color("#FFD75F")),
		Good:     s().Foreground(green),
		Bad:      s().Foreground(red),
		Caution:  s().Foreground(yellow),
		Presence: Presence{
			Standing: s().Foreground(lipgloss.Color("#87AFD7")),
			Active:   s().Foreground(green),
			Idle:     s().Foreground(yellow),
			Stale:    s().Foreground(amber),
			Offline:  s().Foreground(muted),
			Retired:  s().Foreground(muted).Strikethrough(true),
		},
	}
}
