package wizard

import "charm.land/lipgloss/v2"

// Styles is every style the wizard renders with, in one place so the shell
// can pass a theme. Colours are ANSI-16 so the terminal's palette decides the
// look; the renderer downgrades them further (NO_COLOR, dumb terminals).
type Styles struct {
	Title     lipgloss.Style
	Crumb     lipgloss.Style
	CrumbDone lipgloss.Style
	Prompt    lipgloss.Style
	Selected  lipgloss.Style
	Option    lipgloss.Style
	Detail    lipgloss.Style
	Refusal   lipgloss.Style
	Accepted  lipgloss.Style
	Heading   lipgloss.Style
	PaneOn    lipgloss.Style
	PaneOff   lipgloss.Style
	Notice    lipgloss.Style
}

// DefaultStyles returns the wizard's default theme.
func DefaultStyles() Styles {
	s := lipgloss.NewStyle
	return Styles{
		Title:     s().Bold(true),
		Crumb:     s().Foreground(lipgloss.BrightBlack),
		CrumbDone: s().Foreground(lipgloss.Cyan),
		Prompt:    s().Bold(true),
		Selected:  s().Bold(true).Foreground(lipgloss.Cyan),
		Option:    s(),
		Detail:    s().Foreground(lipgloss.BrightBlack),
		Refusal:   s().Foreground(lipgloss.Red),
		Accepted:  s().Foreground(lipgloss.Green),
		Heading:   s().Bold(true).Underline(true),
		PaneOn:    s().Bold(true).Reverse(true),
		PaneOff:   s().Foreground(lipgloss.BrightBlack),
		Notice:    s().Bold(true).Foreground(lipgloss.Yellow),
	}
}
