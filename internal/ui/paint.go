package ui

import (
	"strings"

	"charm.land/lipgloss/v2"
)

// paint is a lipgloss style reduced to the escape sequences around its
// text. Rows are painted with it instead of Style.Render because the table
// renders hundreds of cells per frame and a prefix/suffix pair costs nothing,
// while Render re-measures and re-wraps its input every call.
type paint struct{ pre, post string }

// paintOf captures the sequences a style writes around a marker byte.
// Styles with width, padding or borders do not reduce to a pair and must not
// be passed here; the console only passes colour and attribute styles.
func paintOf(s lipgloss.Style) paint {
	r := s.Render("\x00")
	i := strings.IndexByte(r, 0)
	if i < 0 {
		return paint{}
	}
	return paint{pre: r[:i], post: r[i+1:]}
}
