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

// TestGoldenQueuePreview pins the queue with its preview at 80×24 and
// 120×40: a long URL and a long path in the list and whole in the preview,
// with a relayed choice and a description bound, and the preview following
// j to the path's row.
func TestGoldenQueuePreview(t *testing.T) {
	snap := demoSnapshot()
	snap.Confirmations[0].Arguments = []Argument{{Name: "choice", Value: "publish"},
		{Name: "description", Value: "v1.2.0 for linux/amd64, signed by the release key"}}
	snap.Confirmations[3].Target = "path:memory/credentials/gateway/rotations/2026/gateway-token-rotation-schedule-235.md"
	for _, size := range golden.Sizes {
		w, h := size[0], size[1]
		for _, c := range []struct {
			name string
			keys []string
		}{
			{"queue-preview-url", []string{"2"}},
			{"queue-preview-path", []string{"2", "j", "j", "j"}},
		} {
			name := fmt.Sprintf("%s-%dx%d", c.name, w, h)
			t.Run(name, func(t *testing.T) {
				m := console(t, &hubDouble{snap: snap}, w, h)
				press(t, m, c.keys...)
				got := plain(m)
				golden.Shape(t, name, got, w, h)
				golden.Check(t, name, got)
			})
		}
	}
}
