package matrix

import "charm.land/lipgloss/v2"

// Styles is every style the matrix view renders with. ANSI-16 colours; the
// renderer downgrades them (NO_COLOR).
type Styles struct {
	Title      lipgloss.Style
	Header     lipgloss.Style
	Chosen     lipgloss.Style
	Bundle     lipgloss.Style
	None       lipgloss.Style
	Confirm    lipgloss.Style
	Note       lipgloss.Style
	Heading    lipgloss.Style
	Granted    lipgloss.Style
	NotGranted lipgloss.Style
	Added      lipgloss.Style
	Removed    lipgloss.Style
	Changed    lipgloss.Style
}

// DefaultStyles returns the matrix view's default theme.
func DefaultStyles() Styles {
	s := lipgloss.NewStyle
	return Styles{
		Title:      s().Bold(true),
		Header:     s().Bold(true),
		Chosen:     s().Bold(true).Reverse(true),
		Bundle:     s(),
		None:       s().Foreground(lipgloss.BrightBlack),
		Confirm:    s().Foreground(lipgloss.Yellow),
		Note:       s().Foreground(lipgloss.BrightBlack),
		Heading:    s().Bold(true).Underline(true),
		Granted:    s().Foreground(lipgloss.Green),
		NotGranted: s().Foreground(lipgloss.Red),
		Added:      s().Foreground(lipgloss.Green),
		Removed:    s().Foreground(lipgloss.Red),
		Changed:    s().Foreground(lipgloss.Yellow),
	}
}
