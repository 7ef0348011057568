package hub

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// An approved retirement is carried out with its decision: when the
// decider hears "approved", the generation is retired in the registry and
// its token is refused ("refused from the moment its retirement is
// approved") — there is no decided-but-not-retired state.
func TestApprovedRetirementIsRetiredWithItsDecision(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	p := th.addPersona(t, "work/core/lead", "Spica")
	rt := th.runtime(t, p)
	bg := context.Background()
	_, err := rt.Beat(bg)
	mustNil(t, err)
	henry := th.operator(t, "henry")
	r, err := henry.RequestRetirement(bg, p.Address, "done")
	mustNil(t, err)
	c, err := henry.Decide(bg, r.Confirmation.ID, hubapi.DecideRequest{Approve: true})
	mustNil(t, err)
	if c.State != confirm.StateApproved {
		t.Fatalf("decided %s, want approved", c.State)
	}
	got, err := th.hub.Registry().Get(bg, p.ID)
	mustNil(t, err)
	if got.State != registry.StateRetired || got.RetireReason != "done" {
		t.Fatalf("after the approval the generation is %s (%q), want retired with the requester's reason", got.State, got.RetireReason)
	}
	_, err = rt.Beat(bg)
	wantCode(t, err, "retired")
}

// A registration that names no bound human is bound to the operator who
// registered it — never to the user the hub process runs as.
func TestRegistrationDefaultsToTheCallingOperator(t *testing.T) {
	t.Setenv("USER", "hubuser")
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	reg, err := th.operator(t, "alice").Register(context.Background(), hubapi.RegisterRequest{Address: "work/core/lead", Name: "Spica"})
	mustNil(t, err)
	if reg.Persona.Human != "human:alice" || reg.Confirmation.Authority.String() != "human:alice" {
		t.Fatalf("bound human %q, activation routed to %s; want human:alice", reg.Persona.Human, reg.Confirmation.Authority)
	}
}

// What a hub run derives is derived again after a restart: a stamp problem
// that was mended while the hub was down no longer shows, and the waiting
// count comes from the queue, not from the saved presence.
func TestRestartDerivesPresenceAgain(t *testing.T) {
	home := shortHome(t)
	th := startHub(t, home, Config{}, Timeouts{})
	p := th.addPersona(t, "work/core/lead", "Spica")
	th.stop()
	path := filepath.Join(home.GenerationDir(p.ID), stamp.FileName)
	good, err := os.ReadFile(path)
	mustNil(t, err)
	mustNil(t, os.WriteFile(path, bytes.Replace(good, []byte(`"access": "confirm"`), []byte(`"access": "allow"`), 1), 0o600))
	th2 := startHub(t, home, Config{}, Timeouts{})
	waitPresence(t, th2, p, func(got hubapi.Presence) bool { return got.Problem != "" })
	mustNil(t, th2.hub.Flush(context.Background())) // the problem is saved with the presence
	th2.stop()
	mustNil(t, os.WriteFile(path, good, 0o600)) // mended while the hub is down
	th3 := startHub(t, home, Config{}, Timeouts{})
	mustNil(t, th3.hub.Settle(context.Background()))
	time.Sleep(200 * time.Millisecond) // the background stamp check of a fresh start
	got, _ := th3.hub.Presence().Get(p.ID)
	if got.Problem != "" || got.State == hubapi.StateOffline || got.Waiting != 0 {
		t.Fatalf("after the stamp was mended: state %s, problem %q, waiting %d", got.State, got.Problem, got.Waiting)
	}
	if p2, _ := th3.hub.Registry().Get(context.Background(), p.ID); p2.State != registry.StateActive {
		t.Fatalf("persona is %s", p2.State)
	}
}

func waitPresence(t *testing.T, th *testHub, p registry.Persona, ok func(hubapi.Presence) bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, _ := th.hub.Presence().Get(p.ID)
		if ok(got) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("presence of %s never got there: %+v", p.Address, got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
