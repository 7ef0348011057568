package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/hub"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// shortCLI is a cli on a home short enough for a Unix socket path.
func shortCLI(t *testing.T) *cli {
	dir, err := os.MkdirTemp("", "vc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return &cli{t: t, home: dir}
}

func TestPresenceFromAShellAsARuntimeWould(t *testing.T) {
	t.Setenv(hubclient.PrincipalEnv, "human:henry")
	c := shortCLI(t)
	home := registry.Home{Dir: c.home}
	c.fails("presence", "beat", "work/core/lead") // no hub yet

	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan struct{}), make(chan error, 1)
	go func() {
		done <- hub.Serve(ctx, hub.ServeOptions{Home: home, Ready: func(*hub.Hub) { close(ready) }})
	}()
	<-ready
	defer func() { cancel(); <-done }()
	op, err := hubclient.Dial(ctx, c.home)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := op.Register(ctx, hubapi.RegisterRequest{Address: "work/core/lead", Name: "Spica", Human: "human:henry"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := op.Decide(ctx, reg.Confirmation.ID, hubapi.DecideRequest{Approve: true}); err != nil {
		t.Fatal(err)
	}

	wantContains(t, "beat", c.ok("presence", "beat", "work/core/lead"), "work/core/lead: active (1 beats")
	wantContains(t, "set", c.ok("presence", "set", "work/core/lead", "--activity", "reviewing PR 42", "--summary", "release prep"), "active")
	wantContains(t, "list", c.ok("presence", "list"), "work/core/lead", "Spica", "reviewing PR 42", "release prep")
	wantContains(t, "list json", c.ok("presence", "list", "-o", "json"), `"activity": "reviewing PR 42"`)
	wantContains(t, "set without text", c.fails("presence", "set", "work/core/lead"), "needs --activity or --summary")
	tok := filepath.Join(home.GenerationDir(reg.Persona.ID), hubapi.TokenFile)
	wantContains(t, "token file", c.ok("presence", "beat", "work/core/lead", "--token-file", tok), "active")
	wantContains(t, "second hub", c.fails("serve"), "already running", "pid")
	// a runtime's shell names itself in VIRGO_PRINCIPAL: the token lookup
	// is the one every command acting as a persona uses
	t.Setenv(hubclient.PrincipalEnv, "work/core/lead")
	wantContains(t, "principal is the persona", c.ok("presence", "beat", "work/core/lead"), "work/core/lead: active")
	wantContains(t, "by name", c.ok("presence", "beat", "Spica"), "Spica: active")
}

func TestDemoHeadless(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a two-second simulation")
	}
	t.Setenv(hubclient.PrincipalEnv, "human:henry")
	c := shortCLI(t)
	c.home = filepath.Join(c.home, "demo")
	out := c.ok("demo", "--headless", "--for", "2s")
	wantContains(t, "demo", out, "runtimes sent", "heartbeats")
	if _, err := os.Stat(filepath.Join(c.home, "virgo.db")); err != nil {
		t.Fatalf("demo --home keeps its home: %v", err)
	}
	wantContains(t, "again", c.fails("demo", "--headless", "--for", "1s"), "already holds an installation")
}
