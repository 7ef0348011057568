package ui

import (
	"math/rand/v2"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// The design: "esc backs out and never approves, enter never approves by
// default"; the issue adds space.
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
