package ui

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
)

// colourSGR matches a foreground or background colour sequence.
var colourSGR = regexp.MustCompile(`\x1b\[[0-9;]*(38|48);`)

// The console writes full colours and lets Bubble Tea's renderer downsample
// them through colorprofile; this drives the same writer with the
// environments an operator may have.
func TestColourFollowsTheTerminal(t *testing.T) {
	m := console(t, &hubDouble{snap: demoSnapshot()}, 120, 40)
	screen := m.Render()
	if !colourSGR.MatchString(screen) {
		t.Fatal("the console renders no colour at all")
	}
	for _, c := range []struct {
		env    []string
		colour bool
	}{
		{[]string{"TERM=xterm-256color", "NO_COLOR=1"}, false},
		{[]string{"TERM=dumb"}, false},
		{[]string{"TERM=xterm-256color", "COLORTERM=truecolor"}, true},
	} {
		var out strings.Builder
		w := &colorprofile.Writer{Forward: &out, Profile: colorprofile.Env(c.env)}
		if _, err := w.WriteString(screen); err != nil {
			t.Fatal(err)
		}
		if got := colourSGR.MatchString(out.String()); got != c.colour {
			t.Errorf("%v: colour on screen %v, want %v", c.env, got, c.colour)
		}
		if !strings.Contains(out.String(), "▸ home/secretary") {
			t.Errorf("%v: the selection marker did not survive", c.env)
		}
	}
}
