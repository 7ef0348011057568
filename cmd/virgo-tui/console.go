package main

import (
	"context"
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/hub"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/ui"
)

// errNoTerminal: the console was asked for without a terminal to draw on.
var errNoTerminal = errors.New("the console needs a terminal, and stdin is not one; " +
	"scripts use the subcommands instead (virgo-tui --help lists them, e.g. virgo-tui persona list -o json)")

// runConsole is virgo-tui with no subcommand: the operator console on the
// home's hub, started inside this process when none runs (serving the
// home's socket, so runtimes and other consoles connect to it) and stopped
// when the console quits. While it runs, keepHub starts a hub again if the
// one it joined goes away for good.
func (a *app) runConsole(cmd *cobra.Command, _ []string) error {
	if !isTerminal(cmd.InOrStdin()) {
		return errNoTerminal
	}
	home, err := registry.ResolveHome(a.homeFlag)
	if err != nil {
		return err
	}
	ref, human, err := a.principal()
	if err != nil {
		return err
	}
	as := hubclient.AsOperator("")
	if human {
		as = hubclient.AsOperator(ref)
	}
	return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
		ctx, cancel := context.WithCancel(ctx)
		kept := make(chan error, 1)
		go func() { kept <- keepHub(ctx, home, c, as) }()
		err := ui.Run(ctx, newConsoleClient(c), consoleOptions(c, home.Dir))
		cancel()
		return errors.Join(err, <-kept)
	})
}

// hubWatch is how often a console checks that a hub still serves its home.
var hubWatch = time.Second

// keepHub keeps a hub serving home while the console runs (until ctx
// ends). A console that joined another command's in-process hub loses it
// when that command ends, and then no hub may run at all. The console's
// client dials the home's socket for every request, and its stream
// reconnects by itself (a new hub answers with a resync, after which the
// console takes a fresh snapshot), so all it takes is a hub: when none
// answers, keepHub starts one in this process with hub.Connect, as the
// console does at start (as names who Connect acts as; its client is only
// used to start the hub). Another process may win that race; then its hub
// serves. keepHub returns the stop errors of the hubs it started, once
// they have drained and closed the store.
func keepHub(ctx context.Context, home registry.Home, c *hubclient.Client, as hubclient.DialOption) error {
	var stops []func() error
	t := time.NewTicker(hubWatch)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			var err error
			for _, stop := range stops {
				err = errors.Join(err, stop())
			}
			return err
		case <-t.C:
		}
		if !hubGone(ctx, c) {
			continue
		}
		hc, stop, err := hub.Connect(ctx, home, as)
		if err != nil {
			continue // e.g. another hub holds the home but does not serve yet: look again next tick
		}
		hc.Close()
		stops = append(stops, stop)
	}
}

// hubGone reports whether no hub answers on the client's home.
func hubGone(ctx context.Context, c *hubclient.Client) bool {
	ctx, cancel := context.WithTimeout(ctx, hubWatch)
	defer cancel()
	_, err := c.Health(ctx)
	return errors.Is(err, hubclient.ErrNoHub)
}

// consoleOptions are the console's run options over a hub client: its home
// (log, key bindings) and the persona add wizard over the same client.
func consoleOptions(c *hubclient.Client, home string) ui.RunOptions {
	return ui.RunOptions{Home: home, Options: ui.Options{Plugins: ui.Plugins{Wizard: wizardBackend{c}}}}
}
