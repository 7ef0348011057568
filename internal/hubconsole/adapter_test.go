package hubconsole

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hub"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/ui"
)

// The queue lists tool, target and shape, and "presence detail
// shows what the README promises: stamp hash and summary, bindings, seat
// history (all generations)". The adapter must supply them, from a
// snapshot and from the change stream, with a real hub on a real socket.
func TestConsoleClientSuppliesWhatTheDetailShows(t *testing.T) {
	t.Setenv(hubclient.PrincipalEnv, "human:henry")
	home := shortHome(t)
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan struct{}), make(chan error, 1)
	go func() {
		done <- hub.Serve(ctx, hub.ServeOptions{Home: home, Ready: func(*hub.Hub) { close(ready) }})
	}()
	<-ready
	defer func() { cancel(); <-done }()
	op, err := hubclient.Dial(ctx, home.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer op.Close()
	first, err := op.Register(ctx, hubapi.RegisterRequest{Address: "work/core/lead", Name: "Spica", Human: "human:henry"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := op.Decide(ctx, first.Confirmation.ID, hubapi.DecideRequest{Approve: true}); err != nil {
		t.Fatal(err)
	}
	ret, err := op.RequestRetirement(ctx, "work/core/lead", "context exhausted")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := op.Decide(ctx, ret.Confirmation.ID, hubapi.DecideRequest{Approve: true}); err != nil {
		t.Fatal(err)
	}
	second, err := op.Register(ctx, hubapi.RegisterRequest{Address: "work/core/lead", Name: "Porrima", Human: "human:henry"})
	if err != nil {
		t.Fatal(err)
	}

	console := New(op)
	snap, err := console.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var cf *ui.Confirmation
	for i := range snap.Confirmations {
		if snap.Confirmations[i].ID == second.Confirmation.ID {
			cf = &snap.Confirmations[i]
		}
	}
	if cf == nil || cf.Tool != "virgo.persona.activate" || cf.Target != "address:work/core/lead" ||
		cf.Shape != "permission:change" || cf.Action != "registry.activate" {
		t.Fatalf("the pending activation maps to %+v; want tool, target, shape and handler action", cf)
	}
	gen2 := personaIn(t, snap.Personas, second.Persona.ID)
	if !strings.HasPrefix(gen2.StampSummary, "project-lead, ") || !strings.Contains(gen2.StampSummary, " tools, ") ||
		gen2.StampHash == "" {
		t.Errorf("stamp summary %q, hash %q; want the class, its tool count and the hash", gen2.StampSummary, gen2.StampHash)
	}
	if !hasBinding(gen2.Bindings, "authority", "human:henry") {
		t.Errorf("bindings %+v lack the bound human", gen2.Bindings)
	}
	wantSeats(t, "snapshot, generation 2", gen2.Seats, "1 Spica retired", "2 Porrima pending")
	wantSeats(t, "snapshot, generation 1", personaIn(t, snap.Personas, first.Persona.ID).Seats, "1 Spica retired", "2 Porrima pending")

	// The stream: approving generation 2 changes its seat's history, and
	// every generation of the seat is sent again with it.
	sub, stop := context.WithCancel(ctx)
	defer stop()
	feed, err := console.Subscribe(sub, snap.Seq)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := op.Decide(ctx, second.Confirmation.ID, hubapi.DecideRequest{Approve: true}); err != nil {
		t.Fatal(err)
	}
	seen := map[string][]ui.SeatRecord{}
	deadline := time.After(10 * time.Second)
	for len(seen[first.Persona.ID]) == 0 || len(seen[second.Persona.ID]) == 0 || seen[second.Persona.ID][1].State != "active" {
		select {
		case b := <-feed:
			for _, ch := range b.Changes {
				if ch.Kind == ui.PersonaChanged {
					seen[ch.Persona.ID] = ch.Persona.Seats
				}
			}
		case <-deadline:
			t.Fatalf("no seat history with generation 2 active on the stream: %+v", seen)
		}
	}
	wantSeats(t, "stream, generation 1", seen[first.Persona.ID], "1 Spica retired", "2 Porrima active")
}

func personaIn(t *testing.T, ps []ui.Persona, id string) ui.Persona {
	t.Helper()
	for _, p := range ps {
		if p.ID == id {
			return p
		}
	}
	t.Fatalf("persona %s is not in the snapshot", id)
	return ui.Persona{}
}

func hasBinding(bs []ui.Binding, kind, target string) bool {
	for _, b := range bs {
		if b.Kind == kind && b.Target == target {
			return true
		}
	}
	return false
}

// wantSeats checks a seat history, oldest first, as "generation name state".
func wantSeats(t *testing.T, what string, got []ui.SeatRecord, want ...string) {
	t.Helper()
	var s []string
	for _, r := range got {
		s = append(s, strings.Join([]string{strconv.Itoa(r.Generation), r.Name, r.State}, " "))
		if r.From.IsZero() {
			t.Errorf("%s: generation %d has no start", what, r.Generation)
		}
	}
	if strings.Join(s, ", ") != strings.Join(want, ", ") {
		t.Errorf("%s: seat history %q, want %q", what, s, want)
	}
}

// The remember dialog shows what the hub's Decide would store for the
// record: the persona overlay keyed by the stamp hash, with the handler
// action, normalized target and shape of the operation.
func TestRememberRuleIsWhatDecideStores(t *testing.T) {
	c := &confirm.Confirmation{ID: "c-1", Kind: confirm.KindOperation, StampHash: "sha256:abc", Boundary: confirm.BoundaryDestructive,
		Operation: confirm.Operation{Persona: "work/core/lead", Tool: "publish", HandlerAction: "publish_release",
			Target: confirm.Target{Kind: confirm.TargetPath, Value: "dist/v1.tar.gz"}, Shape: stamp.Shape("publish")}}
	got := uiConfirmation(c).Remember
	want := ui.RememberRule{Overlay: ui.OverlayPersona, Key: "sha256:abc", Action: "publish_release",
		Target: c.Operation.Target.String(), Shape: "publish"}
	if got != want {
		t.Fatalf("rule %+v, want %+v", got, want)
	}
}

// Activations are decided once: the dialog says why instead of a rule.
func TestActivationIsNotRememberable(t *testing.T) {
	r := uiConfirmation(&confirm.Confirmation{ID: "c-2", Kind: confirm.KindActivation}).Remember
	if !strings.Contains(r.Refusal, confirm.ErrNotRememberable.Error()) || !strings.Contains(r.Refusal, "activation") ||
		r.Overlay != "" || r.Key != "" {
		t.Fatalf("activation rule %+v, want only a refusal naming the kind", r)
	}
}

// shortHome is a home whose socket path fits the 108-byte limit of Unix
// socket addresses (t.TempDir() paths can be longer).
func shortHome(t *testing.T) registry.Home {
	t.Helper()
	dir, err := os.MkdirTemp("", "vk")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return registry.Home{Dir: dir}
}
