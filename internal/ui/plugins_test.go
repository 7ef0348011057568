package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/ui/golden"
	"github.com/virgo-hub/virgo-tui/internal/ui/wizard"
)

// wizardDouble is the wizard's backend in the shell's tests: the wizard's
// own tests drive it against real parts.
type wizardDouble struct{}

var errNotHere = errors.New("not in this test")

func (wizardDouble) Snapshot(context.Context) (wizard.Snapshot, error) {
	return wizard.Snapshot{Scopes: []string{"work"}, Projects: map[string][]string{"work": {"core"}},
		Suggestions: []string{"Zaniah"}, Operator: "human:henry"}, nil
}
func (wizardDouble) Preview(context.Context, wizard.Registration) (wizard.Preview, error) {
	return wizard.Preview{}, errNotHere
}
func (wizardDouble) Submit(context.Context, wizard.Registration) (wizard.Submitted, error) {
	return wizard.Submitted{}, errNotHere
}
func (wizardDouble) Approve(context.Context, string) error { return errNotHere }

func TestWizardPluggedIn(t *testing.T) {
	m := console(t, &hubDouble{snap: demoSnapshot()}, 80, 24, Options{Plugins: Plugins{Wizard: wizardDouble{}}})
	press(t, m, "3")
	if !m.plugins.hasWizard() || !strings.Contains(plain(m), "persona add") {
		t.Fatalf("3 did not open the wizard:\n%s", plain(m))
	}
	press(t, m, "1", "q") // typed into the wizard, not the shell's keys
	if m.view != viewWizard {
		t.Fatal("keys typed in the wizard switched the view")
	}
	press(t, m, "ctrl+c") // the wizard's cancel
	if m.view != viewPresence || m.plugins.hasWizard() {
		t.Fatalf("cancelling the wizard should return to presence (view %s)", viewTitles[m.view])
	}
	if !strings.Contains(plain(m), "persona add cancelled") {
		t.Error("no note of the cancelled wizard")
	}
}

func TestWizardUnwiredAndMatrix(t *testing.T) {
	for _, size := range golden.Sizes {
		m := console(t, &hubDouble{snap: demoSnapshot()}, size[0], size[1])
		press(t, m, "3")
		if !strings.Contains(plain(m), "persona add needs a hub") {
			t.Fatal("the unwired wizard view does not explain itself")
		}
		golden.Check(t, fmt.Sprintf("wizard-unwired-%dx%d", size[0], size[1]), plain(m))
		press(t, m, "4")
		before := plain(m)
		press(t, m, "c") // the matrix's compare key reaches the matrix
		if plain(m) == before {
			t.Fatal("the matrix view did not take its key")
		}
		press(t, m, "esc")
		golden.Check(t, fmt.Sprintf("matrix-%dx%d", size[0], size[1]), plain(m))
		press(t, m, "tab", "tab")
		if m.view != viewPresence {
			t.Fatal("tab from the matrix, then from the inbox, should wrap to presence")
		}
	}
}

// "approving on the wizard's last step says "decided by you in another
// console"": the wizard's own approval, streamed back, is reported as made
// here; the same operator's decision elsewhere still as another console's.
func TestWizardApprovalIsReportedAsMadeHere(t *testing.T) {
	m := console(t, &hubDouble{snap: demoSnapshot()}, 80, 24, Options{Plugins: Plugins{Wizard: wizardDouble{}}})
	_ = m.plugins.backend.Approve(context.Background(), "c-2") // the wizard's approve command
	m.Update(batchMsg{changes: []Change{{Seq: 11, Kind: ConfirmationDecided, ID: "c-2", DecidedBy: "human:henry", Outcome: "approved"}}})
	if s := plain(m); !strings.Contains(s, "approved, decided by you here, in the persona add wizard") {
		t.Fatalf("the wizard's approval is not reported as made here:\n%s", s)
	}
	m.Update(batchMsg{changes: []Change{{Seq: 12, Kind: ConfirmationDecided, ID: "c-1", DecidedBy: "human:henry", Outcome: "approved"}}})
	if s := plain(m); !strings.Contains(s, "approved, decided by you in another console") {
		t.Fatalf("a decision elsewhere is not another console's:\n%s", s)
	}
}

// At 80×24, the console's smallest size, the class matrix shortens its
// cells' limits to marks ("R/Wᵃ"); each limit must be readable on the first
// screen, without scrolling, or a mark explains nothing.
func TestMatrixLimitsOnScreenAt80x24(t *testing.T) {
	m := console(t, &hubDouble{snap: demoSnapshot()}, 80, 24)
	press(t, m, "4")
	screen := plain(m)
	seen := map[string]bool{}
	for _, b := range stamp.Bundles() {
		for _, p := range registry.Profiles {
			q := stamp.CellFor(b, p).Qualifier
			if q == "" || seen[q] {
				continue
			}
			seen[q] = true
			if !strings.Contains(screen, " "+q) {
				t.Errorf("the limit %q (%s, %s) is off screen at 80×24:\n%s", q, b.Name, p, screen)
			}
		}
	}
	if len(seen) == 0 {
		t.Fatal("no cell has a limit: the test checks nothing")
	}
}
