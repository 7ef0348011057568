package ui

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/virgo-hub/virgo-tui/internal/ui/keymap"
)

// The design: "esc backs out and never approves, enter never approves by
// default"; space never approves either.
func TestEnterSpaceEscNeverApprove(t *testing.T) {
	states := map[string][]string{
		"list":         nil,
		"detail":       {"enter"},
		"deny prompt":  {"d"},
		"deny reason":  {"d", "o", "k"},
		"filter":       {"/"},
		"jump":         {":"},
		"help":         {"?"},
		"after cancel": {"d", "esc"},
	}
	for name, setup := range states {
		for _, k := range []string{"enter", "space", "esc"} {
			m, h := queueConsole(t)
			press(t, m, setup...)
			for range 5 {
				press(t, m, k)
			}
			if n := h.approvals(); n != 0 {
				t.Errorf("%s then %s×5: %d approvals sent", name, k, n)
			}
		}
	}
}

// What a terminal sends for Esc then Enter typed fast (alt+enter) and for
// a pasted line break (ctrl+j) cannot be bound to approve
// (keymap.ErrNeverApprove: keys.json took them, and Esc+Enter approved),
// and decides nothing under the keys that can. A paste in a terminal that
// brackets pastes arrives as one paste, never its keys: with approve
// bound to o, a pasted "ok⏎" — or a pasted "o" alone — decides nothing.
func TestEscEnterAndPastesApproveNothing(t *testing.T) {
	for _, k := range []string{"alt+enter", "ctrl+j"} {
		if _, err := keymap.Parse("keys.json", []byte(`{"approve": ["`+k+`"]}`)); !errors.Is(err, keymap.ErrNeverApprove) {
			t.Errorf("keys.json binding %s to approve: %v, want ErrNeverApprove", k, err)
		}
	}
	keys, err := keymap.Parse("keys.json", []byte(`{"approve": ["o"], "approve_remember": ["O"]}`))
	if err != nil {
		t.Fatal(err)
	}
	inputs := map[string]tea.Msg{
		"esc+enter typed fast": tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModAlt},
		"pasted line feed":     tea.KeyPressMsg{Code: 'j', Mod: tea.ModCtrl},
		`pasted "ok⏎"`:         tea.PasteMsg{Content: "ok\r"},
		`pasted "o"`:           tea.PasteMsg{Content: "o"},
		`pasted "O" then "y"`:  tea.PasteMsg{Content: "O\ny"},
	}
	for name, msg := range inputs {
		m, h := queueConsole(t, Options{Keys: &keys})
		for range 3 {
			advance(m, m.opts.Arming)
			_, cmd := m.Update(msg)
			runCmd(m, cmd)
			settled(t, m)
		}
		if len(h.decisions) != 0 || m.prompt != promptNone {
			t.Errorf("%s: sent %+v, prompt %v", name, h.decisions, m.prompt)
		}
		// The console is still the operator's: o pressed deliberately decides.
		deliberately(t, m, "o")
		if h.approvals() != 1 {
			t.Errorf("%s: a deliberate o after it sent %+v", name, h.decisions)
		}
	}
}

// Random key storms without the approve keys never approve anything.
func TestKeyStormWithoutApproveKeysNeverApproves(t *testing.T) {
	keys := []string{"enter", "space", "esc", "j", "k", "d", "x", "tab", "shift+tab", "2", "/", ":", "s", "S", "?", "g", "G", "backspace"}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 20 {
		m, _ := queueConsole(t)
		for range 300 {
			m.Update(keyMsg(keys[rng.IntN(len(keys))])) // commands are not run: m.deciding records every send
			for id, d := range m.deciding {
				if d.Approve {
					t.Fatalf("round %d: an approval of %s was sent by keys that never approve", round, id)
				}
			}
		}
	}
}

func pendingFor(id, auth string) Change {
	return Change{Seq: 20, Kind: ConfirmationPending, Confirmation: Confirmation{ID: id, Requester: "work/core/lead",
		Authority: auth, Boundary: "destructive operation", Operation: "drop table", Created: t0, Expires: t0.Add(time.Hour)}}
}

// After a decision the next confirmation slides under the cursor: a double
// press must not decide it unseen.
func TestDoublePressDecidesOnlyOne(t *testing.T) {
	m, h := queueConsole(t)
	press(t, m, "a")
	settled(t, m)
	press(t, m, "a")
	settled(t, m)
	if len(h.decisions) != 1 || h.decisions[0].id != "c-1" {
		t.Fatalf("a, a sent %+v, want only c-1", h.decisions)
	}
	deliberately(t, m, "a")
	if len(h.decisions) != 2 || h.decisions[1].id != "c-2" {
		t.Fatalf("a deliberate press after looking at c-2 should decide it: %+v", h.decisions)
	}
}

// DESIGN.md: "no I/O in Update; side effects only in commands". A whole
// session of keys — moving, filtering, help, switching views, an armed
// approve, a deny with its reason — makes no call to the hub while Update
// runs; the decisions reach it when the commands Update returned run.
func TestUpdateReachesTheHubOnlyThroughCommands(t *testing.T) {
	h := &hubDouble{snap: demoSnapshot()}
	m := console(t, h, 80, 24)
	before := h.callCount()
	send := func(keys ...string) (cmds []tea.Cmd) {
		for _, k := range keys {
			_, cmd := m.Update(keyMsg(k))
			cmds = append(cmds, cmd)
		}
		return cmds
	}
	send("tab", "j", "k", "?", "?", "/", "x", "esc", "2", "j", "k")
	settle := func() tea.Cmd {
		advance(m, m.opts.Settle)
		_, cmd := m.Update(nudge{})
		return cmd
	}
	look(m)
	send("a")
	approve := settle()
	send("j")
	look(m)
	send("d")
	advance(m, m.opts.Settle)
	send("n", "o", "enter")
	deny := settle()
	if n := h.callCount() - before; n != 0 {
		t.Fatalf("Update called the hub %d times itself", n)
	}
	runCmd(m, approve)
	runCmd(m, deny)
	if len(h.decisions) != 2 || !h.decisions[0].d.Approve || h.decisions[1].d.Approve || h.decisions[1].d.Reason != "no" {
		t.Fatalf("the commands sent %+v; want an approval, then a denial with reason \"no\"", h.decisions)
	}
}
