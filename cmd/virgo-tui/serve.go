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
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
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
a beat, offline after --offline, idle after --idle without a new activity.

A new confirmation expires (and counts as denied) after --confirm-ttl, else
$VIRGO_CONFIRM_TTL, else 1h; a console's or command's in-process hub reads the
same variable. A value that is not a positive duration (30m, 2h) is refused.`,
		Example: `  virgo-tui serve
  virgo-tui serve --home ~/virgo --stale 45s --offline 5m
  VIRGO_HOME=/srv/virgo virgo-tui serve -v
  VIRGO_CONFIRM_TTL=15m virgo-tui serve`,
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
			ttl, err := confirmTTL(cmd.Flags().Changed("confirm-ttl"), ttl)
			if err != nil {
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
						home.Dir, hubapi.SocketPath(home.Dir), os.Getpid())
				},
			})
		},
	}
	f := cmd.Flags()
	f.DurationVar(&iv.Heartbeat, "heartbeat", iv.Heartbeat, "how often runtimes are expected to beat")
	f.DurationVar(&iv.Stale, "stale", iv.Stale, "a runtime without a beat for this long is stale")
	f.DurationVar(&iv.Offline, "offline", iv.Offline, "a runtime without a beat for this long is offline")
	f.DurationVar(&iv.Idle, "idle", iv.Idle, "a beating runtime without a new activity for this long is idle")
	f.DurationVar(&ttl, "confirm-ttl", 0, "expiry of new confirmations (default $"+hub.ConfirmTTLEnv+", else 1h)")
	f.BoolVarP(&verbose, "verbose", "v", false, "log debug messages")
	return cmd
}

// serveContext is the context a foreground command runs in: ended by
// SIGINT or SIGTERM.
func serveContext(parent context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
}

// confirmTTL is the expiry of new confirmations for serve: --confirm-ttl
// when given (set says so), else $VIRGO_CONFIRM_TTL, else 0 (the default).
func confirmTTL(set bool, flag time.Duration) (time.Duration, error) {
	if !set {
		return hub.ConfirmTTLFromEnv()
	}
	if flag <= 0 {
		return 0, fmt.Errorf("--confirm-ttl %v: %w", flag, hub.ErrBadConfirmTTL)
	}
	return flag, nil
}
