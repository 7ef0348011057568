package wizard

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/virgo-hub/virgo-tui/internal/ui/keymap"
)

// withKeys is a harness whose wizard reads the given keys.json.
func withKeys(t *testing.T, b Backend, doc string) *harness {
	t.Helper()
	k, err := keymap.Parse("keys.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, m: New(b, Options{Keys: &k})}
	h.run(h.m.Init())
	return h
}

// keys.json reaches the wizard: approve rebound to y approves on the spot
// with y, a does nothing, and the screen names y.
func TestRebindApproveReachesTheWizard(t *testing.T) {
	b := &fakeBackend{snap: existing(), bound: true}
	h := withKeys(t, b, `{"approve": ["y"]}`)
	h.typ("home")
	h.keys("enter", "enter", "enter", "enter", "enter")
	if h.m.step != stepSubmitted {
		t.Fatalf("step %v err %v", h.m.step, h.m.err)
	}
	if v := ansi.Strip(h.m.View(80, 24)); !strings.Contains(v, "press y to approve") || !strings.Contains(v, "y approve") {
		t.Fatalf("the screen does not name the rebound key:\n%s", v)
	}
	h.keys("a")
	if len(b.approvals) != 0 {
		t.Fatal("a approved although approve is bound to y")
	}
	h.keys("y")
	if len(b.approvals) != 1 {
		t.Fatalf("y did not approve: %v", b.approvals)
	}
}

// In the typed steps a key that can be part of an answer is text, whatever
// it is bound to; ? is help there because no answer holds it.
func TestTypedStepsKeepTextKeys(t *testing.T) {
	h := withKeys(t, &fakeBackend{snap: existing()}, `{"cancel": ["x", "ctrl+c"], "back": ["w", "esc"]}`)
	h.typ("kjwx")
	if got := h.m.inputs[stepScope].Value(); got != "kjwx" || h.done != nil {
		t.Fatalf("typed %q (done %v): bound letters were obeyed, not typed", got, h.done)
	}
	h.keys("?")
	if got := h.m.inputs[stepScope].Value(); got != "kjwx" || !h.m.help.ShowAll {
		t.Fatalf("? typed into the answer (%q) or did not open help", got)
	}
	if v := ansi.Strip(h.m.View(80, 24)); !strings.Contains(v, "enter") || !strings.Contains(v, "choose") {
		t.Fatalf("full help does not show the step's keys:\n%s", v)
	}
	h.keys("?")
	if h.m.help.ShowAll {
		t.Fatal("? did not close help")
	}
	h.keys("ctrl+c")
	if h.done == nil || !h.done.Cancelled {
		t.Fatal("the non-text cancel key did not cancel")
	}
}

// Help rebound to a capital is typed in the answer steps and is help in
// the preview, where nothing is typed.
func TestHelpRebound(t *testing.T) {
	h := withKeys(t, &fakeBackend{snap: existing()}, `{"help": ["H"]}`)
	h.typ("Home")
	if h.m.help.ShowAll || h.m.inputs[stepScope].Value() != "Home" {
		t.Fatal("H was help in a typed step")
	}
	h.keys("backspace", "backspace", "backspace", "backspace")
	h.typ("home")
	h.keys("enter", "enter", "enter", "enter")
	if h.m.step != stepPreview {
		t.Fatalf("step %v", h.m.step)
	}
	h.keys("H")
	if !h.m.help.ShowAll {
		t.Fatal("H is not help in the preview")
	}
}

func TestIsText(t *testing.T) {
	for k, want := range map[string]bool{"a": true, "Z": true, "7": true, "-": true, "'": true, "space": true, "é": true,
		"?": false, "/": false, ":": false, "enter": false, "ctrl+c": false, "up": false, "pgdown": false} {
		if isText(k) != want {
			t.Errorf("isText(%q) = %v, want %v", k, !want, want)
		}
	}
}
