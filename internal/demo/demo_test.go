package demo

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hub"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// seeded starts a hub on a short temporary home, seeds the demo
// installation as henry, and returns the home, henry's client and what was
// seeded; everything stops when the test ends.
func seeded(t *testing.T) (string, *hubclient.Client, Installation) {
	t.Helper()
	dir, err := os.MkdirTemp("", "vd")
	if err != nil {
		t.Fatal(err)
	}
	home := registry.Home{Dir: dir}
	ctx, cancel := context.WithCancel(context.Background())
	iv := hub.Intervals{Heartbeat: 100 * time.Millisecond, Stale: 300 * time.Millisecond, Offline: time.Second, Idle: 5 * time.Second}
	ready, done := make(chan struct{}), make(chan error, 1)
	go func() {
		done <- hub.Serve(ctx, hub.ServeOptions{Home: home, Hub: hub.Config{Intervals: iv, FlushEvery: 100 * time.Millisecond},
			Ready: func(*hub.Hub) { close(ready) }})
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		os.RemoveAll(dir)
	})
	select {
	case <-ready:
	case err := <-done:
		t.Fatal(err)
	}
	op, err := hubclient.Dial(ctx, dir, hubclient.AsOperator("henry"))
	if err != nil {
		t.Fatal(err)
	}
	in, err := Seed(ctx, op, "human:henry")
	if err != nil {
		t.Fatal(err)
	}
	return dir, op, in
}

func TestDemoInstallationAndSimulation(t *testing.T) {
	dir, op, in := seeded(t)
	ctx := context.Background()
	if len(in.Active) != len(seats) || in.Retired.ID == "" || in.Pending.State != registry.StatePending {
		t.Fatalf("installation: %d active, retired %q, pending %s", len(in.Active), in.Retired.Address, in.Pending.State)
	}
	run, stop := context.WithTimeout(ctx, 2500*time.Millisecond)
	defer stop()
	st, err := Simulate(run, in, Options{Home: dir, Operator: op, AutoDecide: true, Beat: 100 * time.Millisecond, Seed: 1, AskEvery: 4, MaxPending: 100})
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
	states := map[string]hubapi.State{}
	ps, err := op.Presence(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		states[p.Address+"#"+string(rune('0'+p.Generation))] = p.State
	}
	if s := states["root/secretary#1"]; s != hubapi.StateStanding {
		t.Errorf("root/secretary (no runtime) is %s, want standing", s)
	}
	if s := states["home/secretary#1"]; s != hubapi.StateStale && s != hubapi.StateOffline {
		t.Errorf("home/secretary (runtime went away) is %s, want stale or offline", s)
	}
	if s := states["work/core/deputy#1"]; s != hubapi.StateRetired {
		t.Errorf("the regranted seat's first generation is %s, want retired", s)
	}
	if s := states["work/core/lead#1"]; s != hubapi.StateActive && s != hubapi.StateIdle {
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

// An operator retiring a persona while its simulated runtime runs (as the
// console lets them) ends that runtime quietly, as a real one would when its
// token stops working; the demo goes on.
func TestRetiredRuntimeStopsQuietly(t *testing.T) {
	dir, op, in := seeded(t)
	ctx, stop := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer stop()
	done := make(chan error, 1)
	go func() {
		_, err := Simulate(ctx, in, Options{Home: dir, Beat: 50 * time.Millisecond, Seed: 2, AskEvery: 1000})
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	victim := in.Active[2]
	r, err := op.RequestRetirement(context.Background(), victim.Address, "retired from the console")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := op.Decide(context.Background(), r.Confirmation.ID, hubapi.DecideRequest{Approve: true}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("retiring %s ended the simulation: %v", victim.Address, err)
	}
}

// Issue 9: "Simulated runtimes ask at a pace that keeps about 5–10
// confirmations pending". Runtimes that would ask at every beat keep the
// queue at the bound, never past it, and refill it after decisions.
func TestRuntimesKeepTheQueueBounded(t *testing.T) {
	dir, op, in := seeded(t)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	const bound = 6
	done := make(chan error, 1)
	go func() {
		_, err := Simulate(ctx, in, Options{Home: dir, Operator: op, Beat: 50 * time.Millisecond, Seed: 3, AskEvery: 1, MaxPending: bound})
		done <- err
	}()
	pending := func() []*confirm.Confirmation {
		cs, err := op.Confirmations(context.Background(), false)
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	// Full, then emptied by the operator, then full again; never past the
	// bound. A slow machine (-race) only makes it take longer.
	full, dropped, refilled := false, false, false
	for deadline := time.Now().Add(15 * time.Second); !refilled && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		cs := pending()
		if len(cs) > bound {
			t.Fatalf("%d confirmations pending; the demo keeps at most %d", len(cs), bound)
		}
		switch {
		case full && len(cs) < bound-1:
			dropped = true
		case dropped && len(cs) >= bound-1:
			refilled = true
		case len(cs) == bound && !full:
			full = true
			for _, c := range cs { // the operator decides all of it
				if c.Authority.String() == "human:henry" {
					if _, err := op.Decide(context.Background(), c.ID, hubapi.DecideRequest{Reason: "clear the queue"}); err != nil {
						t.Log(err) // a lead may have decided it meanwhile
					}
				}
			}
		}
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !full || !dropped || !refilled {
		t.Fatalf("queue full %v, emptied by the operator %v, refilled %v", full, dropped, refilled)
	}
}

// Issue 9: the demo operator is human:<login>, or human:operator when $USER
// is empty, never a blank.
func TestDemoOperatorIsNeverBlank(t *testing.T) {
	for _, c := range []struct{ principal, user, want string }{
		{"", "Ada", "human:ada"},
		{"", "", "human:operator"},
		{"", "not a login!", "human:operator"},
		{"human:henry", "ada", "human:henry"},
	} {
		t.Setenv(hubclient.PrincipalEnv, c.principal)
		t.Setenv("USER", c.user)
		if got, err := Operator(); err != nil || got != c.want {
			t.Errorf("VIRGO_PRINCIPAL=%q USER=%q: %q, %v; want %q", c.principal, c.user, got, err, c.want)
		}
	}
}
