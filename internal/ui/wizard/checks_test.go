package wizard

import (
	"errors"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// withHolders is existing() with work/core/lead held by Spica (active) and
// work/web/lead by Auva (pending its confirmation).
func withHolders() Snapshot {
	s := existing()
	s.Holders = map[string]registry.Persona{
		"work/core/lead": {Name: "Spica", Address: "work/core/lead", Generation: 2, State: registry.StateActive},
		"work/web/lead":  {Name: "Auva", Address: "work/web/lead", Generation: 1, State: registry.StatePending},
	}
	return s
}

// "A taken seat is refused at the role step, with the holder
// named, not at submit."
func TestHeldSeatRefusedAtTheRoleStep(t *testing.T) {
	b := &fakeBackend{snap: withHolders()}
	h := newHarness(t, b)
	h.typ("work")
	h.keys("enter", "down", "enter") // work, core
	if h.m.step != stepRole {
		t.Fatalf("step %v", h.m.step)
	}
	if o, _ := h.m.current(stepRole); o.value != "deputy" {
		t.Fatalf("highlighted %q; want deputy, the first seat that is free", o.value)
	}
	h.keys("up") // to lead, held
	want := registry.SeatTakenError("work/core/lead", b.snap.Holders["work/core/lead"])
	if err := h.m.refusal(stepRole); !errors.Is(err, registry.ErrSeatTaken) || err.Error() != want.Error() {
		t.Fatalf("held seat at the role step: %v; want %v", err, want)
	}
	v := h.m.View(120, 40)
	for _, s := range []string{"held by Spica", "work/core/lead is held by Spica (generation 2); retire it first"} {
		if !strings.Contains(v, s) {
			t.Errorf("the role step does not show %q:\n%s", s, v)
		}
	}
	h.keys("enter")
	if h.m.step != stepRole || len(b.submits) != 0 {
		t.Fatal("a held seat was accepted at the role step")
	}
	h.keys("down", "enter") // deputy is free
	if h.m.step != stepName || h.m.answers.Role != "deputy" {
		t.Fatalf("the free seat was not accepted: step %v %+v", h.m.step, h.m.answers)
	}

	// A pending holder is named with what to do about it.
	h = newHarness(t, &fakeBackend{snap: withHolders()})
	h.typ("work")
	h.keys("enter")
	h.typ("web")
	h.keys("enter")
	h.typ("lead") // typed, not chosen from the list: refused all the same
	if err := h.m.refusal(stepRole); err == nil || !strings.Contains(err.Error(), "held by Auva (generation 1, pending confirmation); refuse or retire it first") {
		t.Fatalf("pending holder: %v", err)
	}
	h.keys("enter")
	if h.m.step != stepRole {
		t.Fatal("a seat held by a pending generation was accepted")
	}
}

// "A typed name that is taken (in any letter case) is refused,
// never replaced by a look-alike suggestion ("Spica II")."
func TestTakenNameNeverReplacedByALookAlike(t *testing.T) {
	s := existing()
	s.Suggestions = []string{"Spica II", "Porrima"}
	h := newHarness(t, &fakeBackend{snap: s})
	h.typ("home")
	h.keys("enter", "enter", "enter")
	h.typ("sPiCa")
	if err := h.m.refusal(stepName); !errors.Is(err, registry.ErrNameTaken) {
		t.Fatalf("taken name: %v", err)
	}
	if opts := optionValues(h.m, stepName); len(opts) != 0 {
		t.Fatalf("a taken name offers %v to choose instead", opts)
	}
	h.keys("enter")
	if h.m.step != stepName || h.m.name != "" {
		t.Fatalf("enter on a taken name moved on with %q", h.m.name)
	}

	// A free typed name is the answer, ahead of the suggestions it prefixes.
	h.keys("backspace")
	if o, _ := h.m.current(stepName); o.value != "sPiC" || !o.typed {
		t.Fatalf("highlighted %+v; want the typed name first", o)
	}
	h.keys("enter")
	if h.m.name != "sPiC" {
		t.Fatalf("name %q; want the typed sPiC", h.m.name)
	}
}

// "A typed value that the registry refuses is not offered as a
// choice": the verdict says why, the list holds only what may be chosen.
func TestRefusedTypedValueIsNoChoice(t *testing.T) {
	h := newHarness(t, &fakeBackend{snap: existing()})
	h.typ("Work")
	if opts := optionValues(h.m, stepScope); len(opts) != 0 {
		t.Fatalf("refused scope offered as %v", opts)
	}
	if !strings.Contains(h.m.View(80, 24), "✗ Work: the scope segment") {
		t.Fatalf("refusal not shown:\n%s", h.m.View(80, 24))
	}
	for range 4 {
		h.keys("backspace")
	}
	h.typ("work")
	h.keys("enter")
	h.typ("deputy")
	if opts := optionValues(h.m, stepProject); slices.Contains(opts, "deputy") {
		t.Fatalf("project named like a role offered: %v", opts)
	}
	for _, o := range h.m.options(stepProject) {
		if o.err != nil {
			t.Fatalf("a refused row is offered: %+v", o)
		}
	}
}

// "The preview scrolls by page and to the ends": every key moves
// what is seen, the page keys by the pane's height, g and G to the ends.
func TestPreviewScrollsByPageAndToTheEnds(t *testing.T) {
	h := newHarness(t, &fakeBackend{snap: existing()})
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.typ("home")
	h.keys("enter", "enter", "enter", "enter")
	p := func() *previewState { return h.m.preview }
	rows := h.m.paneRows(24 - h.m.footerHeight(80))
	n := len(p().lines[paneStamp])
	if n <= 2*rows {
		t.Fatalf("the stamp (%d lines) is too short to page through %d rows", n, rows)
	}
	h.keys("pgdown")
	if p().offset[paneStamp] != rows {
		t.Fatalf("pgdown moved to %d; want one page, %d", p().offset[paneStamp], rows)
	}
	h.keys("G")
	last := n - rows
	if p().offset[paneStamp] != last {
		t.Fatalf("G moved to %d; want the last page at %d", p().offset[paneStamp], last)
	}
	if !strings.Contains(h.m.View(80, 24), strings.TrimSpace(p().lines[paneStamp][n-1])) {
		t.Fatal("the last line of the stamp is not on screen after G")
	}
	h.keys("j")
	if p().offset[paneStamp] != last {
		t.Fatal("scrolled past the end")
	}
	h.keys("k")
	if p().offset[paneStamp] != last-1 {
		t.Fatalf("k after G moved to %d; want %d: a key that moves nothing on screen", p().offset[paneStamp], last-1)
	}
	h.keys("pgup")
	if p().offset[paneStamp] != last-1-rows {
		t.Fatalf("pgup: %d", p().offset[paneStamp])
	}
	h.keys("g")
	if p().offset[paneStamp] != 0 {
		t.Fatalf("g moved to %d; want the top", p().offset[paneStamp])
	}
}
