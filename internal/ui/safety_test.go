package ui

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
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

func TestGracePeriodSwallowsKeys(t *testing.T) {
	m, h := queueConsole(t)
	press(t, m, "j", "k") // the operator is typing
	setClock(m, t0.Add(300*time.Millisecond))
	m.Update(batchMsg{at: t0, changes: []Change{pendingFor("c-9", "human:henry")}})
	if !strings.Contains(plain(m), "keys paused") {
		t.Fatalf("the footer does not say keys are paused:\n%s", plain(m))
	}
	press(t, m, "a", "A", "d")
	if len(h.decisions) != 0 || m.prompt != promptNone {
		t.Fatalf("keys inside the grace period acted: %+v", h.decisions)
	}
	setClock(m, t0.Add(300*time.Millisecond+m.opts.Grace))
	press(t, m, "a")
	if len(h.decisions) != 1 {
		t.Fatal("after the grace period the approve key should work again")
	}
}

func TestNoGraceWhenIdleAndNotSelected(t *testing.T) {
	m, h := queueConsole(t)
	setClock(m, t0.Add(5*time.Second)) // last key long ago
	m.Update(batchMsg{changes: []Change{pendingFor("c-9", "human:henry")}})
	press(t, m, "a")
	if len(h.decisions) != 1 || h.decisions[0].id != "c-1" {
		t.Fatalf("an idle operator's key should act on the selection that did not move: %+v", h.decisions)
	}
}

func TestGraceWhenAPromptOpensOnItsOwn(t *testing.T) {
	snap := demoSnapshot()
	snap.Confirmations = nil
	h := &hubDouble{snap: snap}
	m := console(t, h, 80, 24)
	press(t, m, "2")
	setClock(m, t0.Add(5*time.Second)) // not typing
	m.Update(batchMsg{changes: []Change{pendingFor("c-9", "human:henry")}})
	press(t, m, "a")
	if len(h.decisions) != 0 {
		t.Fatal("a confirmation that appeared under the cursor was approved by a key pressed at once")
	}
	if !strings.Contains(plain(m), "keys paused") {
		t.Error("the footer does not say keys are paused")
	}
}

func TestGraceIsConfigurable(t *testing.T) {
	h := &hubDouble{snap: demoSnapshot()}
	m := New(h, Options{Now: func() time.Time { return t0 }, Grace: 2 * time.Second})
	if m.opts.Grace != 2*time.Second {
		t.Fatal("Options.Grace ignored")
	}
}

// After a decision the next confirmation slides under the cursor: a double
// press must not decide it unseen.
func TestDoublePressDecidesOnlyOne(t *testing.T) {
	m, h := queueConsole(t)
	press(t, m, "a", "a")
	if len(h.decisions) != 1 || h.decisions[0].id != "c-1" {
		t.Fatalf("a, a sent %+v, want only c-1", h.decisions)
	}
	setClock(m, t0.Add(time.Second))
	press(t, m, "a")
	if len(h.decisions) != 2 || h.decisions[1].id != "c-2" {
		t.Fatalf("a deliberate press after the grace period should decide c-2: %+v", h.decisions)
	}
}
