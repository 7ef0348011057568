package ui

import (
	"errors"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/ui/golden"
	"github.com/virgo-hub/virgo-tui/internal/ui/keymap"
)

// "`A` (approve and remember) ... opens a small
// dialog showing exactly the rule that will be stored — persona or class
// overlay, stamp hash, handler action, normalized target, shape — and
// stores it only on an explicit `y`; anything else cancels."
func TestRememberDialogShowsTheRuleAndStoresOnlyOnY(t *testing.T) {
	m, h := queueConsole(t)
	press(t, m, "A")
	if m.dialog == nil || len(h.decisions) != 0 {
		t.Fatalf("A did not open the dialog (or decided at once: %+v)", h.decisions)
	}
	s := plain(m)
	r := demoSnapshot().Confirmations[0].Remember
	flat := strings.Join(strings.Fields(strings.NewReplacer("│", " ").Replace(s)), "")
	for _, want := range []string{"persona (work/core/lead's experience layer)", r.Key, r.Action, r.Target, r.Shape} {
		if !strings.Contains(flat, strings.Join(strings.Fields(want), "")) {
			t.Errorf("the dialog does not show %q in full:\n%s", want, s)
		}
	}
	deliberately(t, m, "y")
	want := Decision{Approve: true, Remember: true, Overlay: OverlayPersona}
	if len(h.decisions) != 1 || h.decisions[0].id != "c-1" || h.decisions[0].d != want {
		t.Fatalf("y sent %+v, want %+v for c-1", h.decisions, want)
	}
	if m.dialog != nil {
		t.Error("the dialog stayed open after y")
	}
}

func TestRememberDialogAnyOtherKeyCancels(t *testing.T) {
	for _, k := range []string{"n", "esc", "enter", "space", "a", "A", "d", "Y", "q", "j", "tab"} {
		m, h := queueConsole(t)
		press(t, m, "A", k)
		if len(h.decisions) != 0 || m.dialog != nil {
			t.Errorf("A then %s: decisions %+v, dialog open %v; want nothing decided and the dialog closed", k, h.decisions, m.dialog != nil)
		}
		if k != "q" && !strings.Contains(plain(m), "nothing was decided") {
			t.Errorf("A then %s: the status line does not say nothing was decided:\n%s", k, plain(m))
		}
	}
}

// "Confirmations that may not be remembered ... say so in the dialog
// instead."
func TestRememberDialogSaysWhyNot(t *testing.T) {
	m, h := queueConsole(t)
	press(t, m, "j")
	look(m)
	press(t, m, "A")
	s := plain(m)
	if m.dialog == nil || !strings.Contains(s, "remember c-2 (activation  at credential-or-permission-change): an") ||
		!strings.Contains(s, "Nothing is decided here.") {
		t.Fatalf("A on an activation does not say why it cannot be remembered:\n%s", s)
	}
	press(t, m, "y")
	if len(h.decisions) != 0 || m.dialog != nil {
		t.Fatalf("y in the refusal dialog decided %+v", h.decisions)
	}
}

// A on a row that is not armed opens nothing: the dialog too is a decision.
func TestRememberDialogNeedsAnArmedRow(t *testing.T) {
	h := &hubDouble{snap: demoSnapshot()}
	m := console(t, h, 80, 24)
	press(t, m, "2", "A", "y")
	if m.dialog != nil || len(h.decisions) != 0 {
		t.Fatalf("A, y on a fresh row: dialog %v, decisions %+v", m.dialog != nil, h.decisions)
	}
	if !strings.Contains(plain(m), "look first") {
		t.Errorf("the footer does not say why:\n%s", plain(m))
	}
}

// A confirmation decided elsewhere while its dialog is open closes it, and
// the y meant for it decides nothing else.
func TestRememberDialogClosesWhenDecidedElsewhere(t *testing.T) {
	m, h := queueConsole(t)
	press(t, m, "A")
	m.Update(batchMsg{changes: []Change{{Seq: 11, Kind: ConfirmationDecided, ID: "c-1", DecidedBy: "human:ada", Outcome: "denied"}}})
	if m.dialog != nil {
		t.Fatal("the dialog stayed open for a confirmation decided elsewhere")
	}
	press(t, m, "y")
	if len(h.decisions) != 0 {
		t.Fatalf("the y meant for the closed dialog decided %+v", h.decisions)
	}
}

// keys.json may rebind the dialog's confirm key, but not to a key that
// also opens the dialog (a double press would store a rule).
func TestRememberConfirmKeyIsRebindable(t *testing.T) {
	k, err := keymap.Parse("keys.json", []byte(`{"approve": ["y"], "confirm": ["s"], "sort": ["o"]}`))
	if err != nil {
		t.Fatal(err)
	}
	h := &hubDouble{snap: demoSnapshot()}
	m := console(t, h, 80, 24, Options{Keys: &k})
	press(t, m, "2")
	look(m)
	press(t, m, "A", "y")
	if len(h.decisions) != 0 {
		t.Fatalf("y stored a rule after confirm was rebound to s: %+v", h.decisions)
	}
	deliberately(t, m, "A", "s")
	if len(h.decisions) != 1 || !h.decisions[0].d.Remember {
		t.Fatalf("the rebound confirm key did not store: %+v", h.decisions)
	}
	if _, err := keymap.Parse("keys.json", []byte(`{"confirm": ["A"]}`)); err == nil || !strings.Contains(err.Error(), "a double press would store a rule") {
		t.Errorf("confirm on A: %v", err)
	}
	if _, err := keymap.Parse("keys.json", []byte(`{"confirm": ["enter"]}`)); !errors.Is(err, keymap.ErrNeverApprove) || !strings.Contains(err.Error(), `action "confirm" may not use "enter"`) {
		t.Errorf("confirm on enter: %v", err)
	}
}

// The remember dialog, both kinds, pinned at 80×24 and 120×40.
func TestGoldenRememberDialog(t *testing.T) {
	for _, c := range []struct {
		name string
		keys []string
	}{{"remember", nil}, {"remember-refused", []string{"j"}}} {
		golden.Settled(t, c.name, func(w, h int) string {
			m := console(t, &hubDouble{snap: demoSnapshot()}, w, h)
			press(t, m, append([]string{"2"}, c.keys...)...)
			look(m)
			press(t, m, "A")
			if m.dialog == nil {
				t.Fatalf("%s: A did not open the dialog", c.name)
			}
			return m.Render()
		})
	}
}
