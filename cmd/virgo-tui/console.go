package main

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/hubconsole"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/ui"
)

// errNoTerminal: the console was asked for without a terminal to draw on.
var errNoTerminal = errors.New("the console needs a terminal, and stdin is not one; " +
	"scripts use the subcommands instead (virgo-tui --help lists them, e.g. virgo-tui persona list -o json)")

// runConsole is virgo-tui with no subcommand: the operator console on the
// home's hub, started inside this process when none runs (serving the
// home's socket, so runtimes and other consoles connect to it) and stopped
// when the console quits. While it runs, its client starts a hub again if
// the one it joined goes away and no other takes over.
func (a *app) runConsole(cmd *cobra.Command, _ []string) error {
	if !isTerminal(cmd.InOrStdin()) {
		return errNoTerminal
	}
	home, err := registry.CreateHome(a.homeFlag)
	if err != nil {
		return err
	}
	return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
		// The console runs the home's sessions too: it wakes the idle ones
		// when work arrives, unless serve (or another console) does.
		wctx, stop := context.WithCancel(ctx)
		defer stop()
		go func() { _ = wakeSessions(wctx, home.Dir, c, nil) }()
		opts := consoleOptions(c, home.Dir)
		opts.Options.Plugins.Sessions = consoleSessions{a}
		return ui.Run(ctx, hubconsole.New(c), opts)
	})
}

// consoleOptions are the console's run options over a hub client: its home
// (log, key bindings) and the persona add wizard over the same client.
func consoleOptions(c *hubclient.Client, home string) ui.RunOptions {
	return ui.RunOptions{Home: home, Options: ui.Options{Plugins: ui.Plugins{Wizard: wizardBackend{c}}}}
}
