package wizard

import (
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/ui/golden"
)

func TestGoldenViews(t *testing.T) {
	first := &fakeBackend{snap: Snapshot{Empty: true, Suggestions: []string{"Spica", "Porrima", "Vindemiatrix"}}}
	h := newHarness(t, first)
	settled(t, "first-install-scope", h.m)

	h = newHarness(t, &fakeBackend{snap: existing()})
	settled(t, "scope", h.m)
	h.typ("Work")
	settled(t, "scope-refused", h.m)
	for range 4 {
		h.keys("backspace")
	}
	h.typ("work")
	h.keys("enter")
	settled(t, "project", h.m)
	h.keys("down", "enter")
	settled(t, "role", h.m)
	h.keys("down", "enter")
	h.typ("auva")
	settled(t, "name-taken", h.m)
	for range 4 {
		h.keys("backspace")
	}
	settled(t, "name", h.m)
	h.keys("enter")
	settled(t, "preview", h.m)
	h.keys("v")
	settled(t, "preview-diff", h.m)

	b := &fakeBackend{snap: existing(), bound: true}
	h = newHarness(t, b)
	h.typ("home")
	h.keys("enter", "enter", "enter", "enter", "enter")
	settled(t, "submitted-bound-human", h.m)
}

// settled pins the wizard's view at the console's sizes.
func settled(t *testing.T, name string, m Model) {
	t.Helper()
	golden.Settled(t, name, m.View)
}
