package ui

import (
	"fmt"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/ui/golden"
)

// lookKey in a golden case's keys is the operator looking at the selected
// row for the arming time, not a key.
const lookKey = "(look)"

// TestGoldenViews pins the settled views at 80×24 and 120×40, colour off.
func TestGoldenViews(t *testing.T) {
	for _, size := range golden.Sizes {
		w, h := size[0], size[1]
		cases := []struct {
			name string
			keys []string
		}{
			{"presence", nil},
			{"presence-detail", []string{"j", "enter"}},
			{"queue", []string{"2"}},
			{"queue-detail", []string{"2", "j", "enter"}},
			{"queue-deny", []string{"2", lookKey, "d"}},
			{"help", []string{"2", "?"}},
		}
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s-%dx%d", c.name, w, h), func(t *testing.T) {
				m := console(t, &hubDouble{snap: demoSnapshot()}, w, h)
				for _, k := range c.keys {
					if k == lookKey {
						look(m)
						continue
					}
					press(t, m, k)
				}
				name := fmt.Sprintf("%s-%dx%d", c.name, w, h)
				got := plain(m)
				golden.Shape(t, name, got, w, h)
				golden.Check(t, name, got)
			})
		}
	}
}
