package main

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hub"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/hubconsole"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/ui"
)

// A console that joined another command's in-process hub loses it when
// that command ends; its client then starts a hub of its own and resumes:
// it answers again, and its stream resyncs and carries the new hub's
// changes. When the console quits, the hub it started stops.
func TestConsoleStartsAHubWhenItsHubGoesAway(t *testing.T) {
	t.Setenv(hubclient.PrincipalEnv, "human:henry")
	c := shortCLI(t)
	home := registry.Home{Dir: c.home}

	// another command's hub, which the console joins
	other, stopOther := context.WithCancel(context.Background())
	ready, served := make(chan *hub.Hub, 1), make(chan error, 1)
	go func() {
		served <- hub.Serve(other, hub.ServeOptions{Home: home, Ready: func(h *hub.Hub) { ready <- h }})
	}()
	<-ready
	ctx := context.Background()
	cl, err := hubclient.Dial(ctx, c.home, hubclient.WithStarter(hub.InProcessOn(home, "")))
	if err != nil {
		t.Fatal(err)
	}
	first, err := cl.Health(ctx)
	if err != nil {
		t.Fatal(err)
	}
	console := hubconsole.New(cl)
	snap, err := console.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sub, cancelSub := context.WithCancel(ctx)
	defer cancelSub()
	feed, err := console.Subscribe(sub, snap.Seq)
	if err != nil {
		t.Fatal(err)
	}
	stopOther() // the other command ends, and its hub with it
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	// the stream ends with a resync once a new hub answers
	for open := true; open; {
		select {
		case _, open = <-feed:
		case <-time.After(10 * time.Second):
			t.Fatal("the console's stream never resynced on a new hub")
		}
	}
	h, err := cl.Health(ctx)
	if err != nil || h.Epoch == first.Epoch {
		t.Fatalf("after the hub went away: %+v, %v; want a new hub", h, err)
	}
	// resume as the console does: a fresh snapshot, then the changes after it
	snap, err = console.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	feed, err = console.Subscribe(sub, snap.Seq)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := cl.Register(ctx, hubapi.RegisterRequest{Address: "work/core/lead", Name: "Spica", Human: "human:henry"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, feed, func(ch ui.Change) bool {
		return ch.Kind == ui.ConfirmationPending && ch.Confirmation.ID == reg.Confirmation.ID
	})

	cancelSub()
	if err := cl.Close(); err != nil { // the console quits: the hub it started stops
		t.Fatal(err)
	}
	if h.PID != os.Getpid() {
		t.Fatalf("the new hub has pid %d, want the console's %d", h.PID, os.Getpid())
	}
	if _, err := hubclient.Dial(ctx, c.home, hubclient.WithRetryBudget(0)); !errors.Is(err, hubclient.ErrNoHub) {
		t.Fatalf("after the console quit: %v, want no hub", err)
	}
}

// waitFor reads the console's feed until a change satisfies ok.
func waitFor(t *testing.T, feed <-chan ui.Batch, ok func(ui.Change) bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case b, open := <-feed:
			if !open {
				t.Fatal("the console's stream ended")
			}
			for _, ch := range b.Changes {
				if ok(ch) {
					return
				}
			}
		case <-deadline:
			t.Fatal("the change never reached the console")
		}
	}
}
