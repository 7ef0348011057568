package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/hub"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

func init() { subcommands = append(subcommands, newServeCmd) }

func newServeCmd(a *app) *cobra.Command {
	iv := hub.DefaultIntervals
	var ttl time.Duration
	var verbose bool
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the hub in the foreground: the one owner of the database",
		Long: `Run the installation's hub until SIGINT or SIGTERM. The hub is the one process
that opens the database for writing; persona runtimes, subcommands and consoles
talk to it over <home>/run/hub.sock (HTTP + JSON, 0600 in a 0700 directory;
the API is in docs/api.md). A second hub on the same home is refused with the
pid holding it. On shutdown the hub drains requests in flight, writes the
last presence, and closes the database.

Presence: a runtime beats every --heartbeat; it is stale after --stale without
a beat, offline after --offline, idle after --idle without a new activity.`,
		Example: `  virgo-tui serve
  virgo-tui serve --home ~/virgo --stale 45s --offline 5m
  VIRGO_HOME=/srv/virgo virgo-tui serve -v`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			home, err := registry.ResolveHome(a.homeFlag)
			if err != nil {
				return err
			}
			level := slog.LevelInfo
			if verbose {
				level = slog.LevelDebug
			}
			log := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level}))
			if err := iv.Validate(); err != nil {
				return err
			}
			ctx, stop := serveContext(cmd.Context())
			defer stop()
			return hub.Serve(ctx, hub.ServeOptions{
				Home: home,
				Hub:  hub.Config{Intervals: iv, ConfirmTTL: ttl},
				Log:  log,
				Ready: func(*hub.Hub) {
					fmt.Fprintf(cmd.ErrOrStderr(), "hub serving %s on %s (pid %d); stop with Ctrl-C\n",
						home.Dir, hub.SocketPath(home.Dir), os.Getpid())
				},
			})
		},
	}
	f := cmd.Flags()
	f.DurationVar(&iv.Heartbeat, "heartbeat", iv.Heartbeat, "how often runtimes are expected to beat")
	f.DurationVar(&iv.Stale, "stale", iv.Stale, "a runtime without a beat for this long is stale")
	f.DurationVar(&iv.Offline, "offline", iv.Offline, "a runtime without a beat for this long is offline")
	f.DurationVar(&iv.Idle, "idle", iv.Idle, "a beating runtime without a new activity for this long is idle")
	f.DurationVar(&ttl, "confirm-ttl", 0, "expiry of new confirmations (default 1h)")
	f.BoolVarP(&verbose, "verbose", "v", false, "log debug messages")
	return cmd
}

// serveContext is the context a foreground command runs in: ended by
// SIGINT or SIGTERM.
func serveContext(parent context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
}
