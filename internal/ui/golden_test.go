package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestGoldenViews pins the settled views at 80×24 and 120×40, colour off.
func TestGoldenViews(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		w, h := size[0], size[1]
		cases := []struct {
			name string
			keys []string
		}{
			{"presence", nil},
			{"presence-detail", []string{"j", "enter"}},
			{"queue", []string{"2"}},
			{"queue-detail", []string{"2", "j", "enter"}},
			{"queue-deny", []string{"2", "d"}},
			{"help", []string{"2", "?"}},
		}
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s-%dx%d", c.name, w, h), func(t *testing.T) {
				m := console(t, &hubDouble{snap: demoSnapshot()}, w, h)
				press(t, m, c.keys...)
				got := plain(m)
				lines := strings.Split(got, "\n")
				if len(lines) != h {
					t.Errorf("screen has %d lines, want %d", len(lines), h)
				}
				for i, l := range lines {
					if lw := ansi.StringWidth(l); lw > w {
						t.Errorf("line %d is %d cells wide, want at most %d: %q", i+1, lw, w, l)
					}
				}
				golden(t, fmt.Sprintf("%s-%dx%d.golden", c.name, w, h), got)
			})
		}
	}
}
