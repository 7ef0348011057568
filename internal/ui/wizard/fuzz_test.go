package wizard

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// FuzzTypedAnswer types arbitrary text (pasted, so any bytes) into every
// step: the wizard must not panic, must keep the frame's size, and must
// never accept a value the registry refuses.
func FuzzTypedAnswer(f *testing.F) {
	for _, s := range []string{"", "work", "Work", "root", "-", "all", "*", "a/b", "secretary", "ÄÖ", "spica",
		"\x00", "rijl al awwa", strings.Repeat("x", 80), "é", "\u0301", "zz\u200bz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for s := stepScope; s <= stepName; s++ {
			h := newHarness(t, &fakeBackend{snap: existing()})
			for h.m.step < s {
				before := h.m.step
				h.keys("enter")
				if h.m.step == before {
					t.Fatalf("default answer of %v refused", before)
				}
			}
			h.send(tea.PasteMsg{Content: text})
			for _, sz := range [][2]int{{80, 24}, {120, 40}} {
				v := h.m.View(sz[0], sz[1])
				if n := strings.Count(v, "\n") + 1; n != sz[1] {
					t.Fatalf("step %v: %d lines at %dx%d", s, n, sz[0], sz[1])
				}
				for _, l := range strings.Split(v, "\n") {
					if ansi.StringWidth(l) > sz[0] {
						t.Fatalf("step %v: line wider than %d: %q", s, sz[0], l)
					}
				}
			}
			o, ok := h.m.current(s)
			h.keys("enter")
			if h.m.step != s && (!ok || o.err != nil) {
				t.Fatalf("step %v accepted a refused value %q: %+v", s, text, o)
			}
		}
	})
}
