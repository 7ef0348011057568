package main

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/hub"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/registry/roster"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
)

// serveHub runs a hub for the cli's home in this test process, as
// `virgo-tui serve` would, until the test ends.
func serveHub(t *testing.T, c *cli) {
	t.Helper()
	home, err := registry.CreateHome(c.home)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready, served := make(chan struct{}), make(chan error, 1)
	go func() { served <- hub.Serve(ctx, hub.ServeOptions{Home: home, Ready: func(*hub.Hub) { close(ready) }}) }()
	select {
	case <-ready:
	case err := <-served:
		cancel()
		t.Fatalf("serve: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
}

// "with a hub running, both connect to it" — the
// subcommands no longer open the database, so they work beside a hub
// instead of failing with ErrLocked, and leave the hub running.
func TestCommandsGoThroughARunningHub(t *testing.T) {
	c := newCLI(t)
	serveHub(t, c)
	home, _ := registry.CreateHome(c.home)
	if _, err := boltstore.Open(home.DBPath(), boltstore.Options{}); !errors.Is(err, store.ErrLocked) {
		t.Fatalf("the hub does not hold the database (open: %v); the test proves nothing", err)
	}
	r := c.add("--scope", "root", "--role", "secretary", "--name", "Spica")
	c.ok("confirm", "approve", r.Confirmation.ID)
	wantContains(t, "list through the hub", c.ok("persona", "list"), "root/secretary", "Spica", "active")
	wantContains(t, "audit through the hub", c.ok("audit"), "requested", "approved", r.Confirmation.ID)
	op, err := hubclient.Dial(context.Background(), c.home, hubclient.AsOperator("human:owner"))
	if err != nil {
		t.Fatalf("the commands stopped the running hub: %v", err)
	}
	defer op.Close()
	if ps, err := op.Personas(context.Background(), false); err != nil || len(ps) != 1 || ps[0].Presence == nil {
		t.Fatalf("hub's personas = %+v, %v; want Spica with her presence", ps, err)
	}
}

// "with no hub running, the console starts a hub inside
// its own process" — a one-shot command does the same and stops it when
// done: nobody listens on the socket afterwards and the database is free.
func TestCommandStartsAndStopsAHubInProcess(t *testing.T) {
	c := newCLI(t)
	c.add("--scope", "root", "--role", "secretary", "--name", "Spica")
	wantContains(t, "list", c.ok("persona", "list"), "Spica", "pending")
	if _, err := hubclient.Dial(context.Background(), c.home, hubclient.WithRetryBudget(0)); !errors.Is(err, hubclient.ErrNoHub) {
		t.Fatalf("after the command, dial = %v; want ErrNoHub (its hub stopped)", err)
	}
	home, _ := registry.CreateHome(c.home)
	s, err := boltstore.Open(home.DBPath(), boltstore.Options{})
	if err != nil {
		t.Fatalf("the in-process hub left the database locked: %v", err)
	}
	s.Close()
}

// A persona principal acts with its active generation's token; a pending
// one has none yet and is refused, saying so and how an operator sees why
// (the runtime itself asks no operator).
func TestActingAsAPersona(t *testing.T) {
	c := newCLI(t)
	r := c.add("--scope", "work", "--project", "core", "--role", "lead", "--name", "Porrima")
	errOut := c.fails("confirm", "list", "--as", "work/core/lead")
	wantContains(t, "pending persona", errOut, "acting as work/core/lead: work/core/lead: no active holder on this host",
		"A persona acts only while active", "persona show work/core/lead")
	c.ok("confirm", "approve", r.Confirmation.ID)
	if out := c.ok("confirm", "list", "--as", "work/core/lead", "-o", "json"); strings.TrimSpace(out) != "[]" {
		t.Errorf("the lead sees confirmations not its own: %s", out)
	}
	wantContains(t, "persona registers", c.fails("persona", "add", "--scope", "work", "--role", "coordinator", "--name", "Heze",
		"--as", "work/core/lead"), "needs an operator token")
}

// virgo-tui with no subcommand is the console; without a terminal it says
// what to use instead, and starts nothing.
func TestConsoleNeedsATerminal(t *testing.T) {
	c := newCLI(t)
	wantContains(t, "no terminal", c.fails(), "the console needs a terminal, and stdin is not one", "persona list -o json")
	if _, err := hubclient.Dial(context.Background(), c.home, hubclient.WithRetryBudget(0)); !errors.Is(err, hubclient.ErrNoHub) {
		t.Fatalf("a hub was left running: %v", err)
	}
}

// "a one-shot subcommand may open the database directly" —
// persona list with no hub running reads the file itself and starts no hub
// (no hub ever ran on this home, so none left its pid file), which keeps
// the 10,000-persona list within its 100 ms goal.
func TestPersonaListReadsDirectlyWithoutAHub(t *testing.T) {
	c := newCLI(t)
	home, err := registry.CreateHome(c.home)
	if err != nil {
		t.Fatal(err)
	}
	s, err := boltstore.Open(home.DBPath(), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := roster.New(s, home).Register(context.Background(), registry.Registration{Address: "root/secretary", Name: "Spica"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	wantContains(t, "direct list", c.ok("persona", "list"), "root/secretary", "Spica", "active")
	if _, err := os.Stat(hubapi.PIDPath(home.Dir)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("persona list started a hub (pid file: %v)", err)
	}
}

// With a hub running, a read that may go direct finds it as the operator
// the command acts as: it looked as the default operator, and when that one
// was not enrolled it waited out the hub's lock on the file (200 ms) before
// going through the hub — a fifth of the 100 ms list's budget, twice.
func TestReadDirectFindsTheHubAsTheActingOperator(t *testing.T) {
	c := newCLI(t)
	c.asEnrolled = true
	if err := os.MkdirAll(c.home, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := hubapi.EnrolOperator(c.home, "ada", hubapi.NoUID); err != nil {
		t.Fatal(err)
	}
	serveHub(t, c)
	home, _ := registry.CreateHome(c.home)
	a := &app{homeFlag: c.home, as: "human:ada"}
	if !a.hubAnswers(context.Background(), home) {
		t.Fatal("the running hub was not found acting as human:ada (the default operator, human:owner, is not enrolled)")
	}
	wantContains(t, "list through the hub", c.ok("persona", "list", "--as", "human:ada"), "no personas")
}
