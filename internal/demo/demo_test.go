package demo

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hub"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

func TestDemoInstallationAndSimulation(t *testing.T) {
	dir, err := os.MkdirTemp("", "vd")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	home := registry.Home{Dir: dir}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	iv := hub.Intervals{Heartbeat: 100 * time.Millisecond, Stale: 300 * time.Millisecond, Offline: time.Second, Idle: 5 * time.Second}
	ready, done := make(chan struct{}), make(chan error, 1)
	go func() {
		done <- hub.Serve(ctx, hub.ServeOptions{Home: home, Hub: hub.Config{Intervals: iv, FlushEvery: 100 * time.Millisecond},
			Ready: func(*hub.Hub) { close(ready) }})
	}()
	select {
	case <-ready:
	case err := <-done:
		t.Fatal(err)
	}
	op, err := hub.Dial(ctx, dir, hub.AsOperator("henry"))
	if err != nil {
		t.Fatal(err)
	}
	in, err := Seed(ctx, op, "human:henry")
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Active) != len(seats) || in.Retired.ID == "" || in.Pending.State != registry.StatePending {
		t.Fatalf("installation: %d active, retired %q, pending %s", len(in.Active), in.Retired.Address, in.Pending.State)
	}
	run, stop := context.WithTimeout(ctx, 2500*time.Millisecond)
	defer stop()
	st, err := Simulate(run, in, Options{Home: dir, Operator: op, AutoDecide: true, Beat: 100 * time.Millisecond, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if st.Queued.Load() == 0 || st.Denied.Load() == 0 || st.Decided.Load() == 0 || st.Activities.Load() == 0 {
		t.Fatalf("the simulation did not exercise everything: %s", st)
	}

	// "one retired seat regranted": two generations of work/core/deputy
	hist, err := op.SeatHistory(ctx, "work/core/deputy")
	if err != nil || len(hist) != 2 || hist[0].State != registry.StateRetired || hist[1].State != registry.StateActive {
		t.Fatalf("regranted seat history: %+v, %v", hist, err)
	}
	states := map[string]hub.State{}
	ps, err := op.Presence(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		states[p.Address+"#"+string(rune('0'+p.Generation))] = p.State
	}
	if s := states["root/secretary#1"]; s != hub.StateStanding {
		t.Errorf("root/secretary (no runtime) is %s, want standing", s)
	}
	if s := states["home/secretary#1"]; s != hub.StateStale && s != hub.StateOffline {
		t.Errorf("home/secretary (runtime went away) is %s, want stale or offline", s)
	}
	if s := states["work/core/deputy#1"]; s != hub.StateRetired {
		t.Errorf("the regranted seat's first generation is %s, want retired", s)
	}
	if s := states["work/core/lead#1"]; s != hub.StateActive && s != hub.StateIdle {
		t.Errorf("work/core/lead is %s, want active or idle", s)
	}
	// confirmations of every kind were asked
	all, err := op.Confirmations(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[confirm.Kind]bool{}
	boundaries := map[confirm.BoundaryID]bool{}
	for _, c := range all {
		kinds[c.Kind] = true
		boundaries[c.Boundary] = true
	}
	for _, k := range []confirm.Kind{confirm.KindActivation, confirm.KindRetirement, confirm.KindOperation} {
		if !kinds[k] {
			t.Errorf("no %s confirmation", k)
		}
	}
	for _, b := range []confirm.BoundaryID{confirm.BoundaryPublication, confirm.BoundaryDestructive, confirm.BoundaryCredentialOrPermission, confirm.BoundaryDeputyScope} {
		if !boundaries[b] {
			t.Errorf("no confirmation at %s", b)
		}
	}
	t.Log(st)
}
