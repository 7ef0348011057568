package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/hub"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/quota"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/sshconsole"
)

func init() { subcommands = append(subcommands, newServeCmd) }

func newServeCmd(a *app) *cobra.Command {
	iv := hub.DefaultIntervals
	var ttl, lease time.Duration
	var verbose bool
	var sshAddr string
	sshLimits := sshconsole.DefaultLimits
	var quotas quota.Limits
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the hub in the foreground: the one owner of the database",
		Long: `Run the installation's hub until SIGINT or SIGTERM. The hub is the one process
that opens the database for writing; persona runtimes, subcommands and consoles
talk to it over <home>/run/hub.sock (HTTP + JSON, 0600 in a 0700 directory;
the API is in docs/api.md). A second hub on the same home is refused with the
pid holding it; a hub started inside a console (or a command) is asked to
hand the home over instead, and the console carries on with this hub. On
shutdown the hub drains requests in flight, writes the last presence, and
closes the database.

Presence: a runtime beats every --heartbeat; it is stale after --stale without
a beat, offline after --offline, idle after --idle without a new activity.

On etcd (--store etcd://…, docs/etcd.md) several hubs may serve one
installation: each holds a lease of --lease (whole seconds), on which the
presence of its runtimes lives, and one of them runs the jobs that must run
once (expiring confirmations), elected and fenced.

A new confirmation expires (and counts as denied) after --confirm-ttl, else
$VIRGO_CONFIRM_TTL, else 1h; a console's or command's in-process hub reads the
same variable. A value that is not a positive duration (30m, 2h) is refused.

With --ssh the hub also serves the console over SSH (docs/ssh.md): humans
connect with "ssh -p PORT virgo@HOST" and are identified by the public key
they authenticate with (virgo-tui operator add NAME --ssh-key FILE). It is
off by default; an address without a host (--ssh :2222) listens on
loopback: name the host (--ssh 0.0.0.0:2222) to reach the network. The host key is generated once in <home>/ssh and its
fingerprint printed at start, for the humans to pin.

--inbox-bytes and --unread-bytes set the quotas of one seat's unacked message
bytes and one human's unread channel bytes (docs/security.md); a write past
one is refused quota_exceeded, naming it.`,
		Example: `  virgo-tui serve
  virgo-tui serve --home ~/virgo --stale 45s --offline 5m
  VIRGO_HOME=/srv/virgo virgo-tui serve -v
  VIRGO_CONFIRM_TTL=15m virgo-tui serve
  virgo-tui serve --ssh :2222            # SSH console on 127.0.0.1:2222
  virgo-tui serve --ssh 0.0.0.0:2222     # reachable from the network`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			home, err := registry.CreateHome(a.homeFlag)
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
			writeHeapProfilesOnSignal(ctx, log)
			var console *sshListener
			if cmd.Flags().Changed("ssh") {
				if console, err = listenSSH(home, sshAddr, sshLimits, log); err != nil {
					return err
				}
			}
			err = hub.Serve(ctx, hub.ServeOptions{
				Home:  home,
				Store: a.storeFlag,
				Hub:   hub.Config{Intervals: iv, ConfirmTTL: ttl, Lease: lease, Quotas: quotas},
				Log:   log,
				TakeOver: func(ctx context.Context) error {
					return a.askHandOver(ctx, home, cmd.ErrOrStderr())
				},
				Ready: func(h *hub.Hub) {
					fmt.Fprintf(cmd.ErrOrStderr(), "hub serving %s on %s (pid %d); stop with Ctrl-C\n",
						home.Dir, hubapi.SocketPath(home.Dir), os.Getpid())
					if console != nil {
						console.start(ctx, h, cmd.ErrOrStderr())
					}
					go a.serveWaker(ctx, home, log)
				},
			})
			if console != nil {
				err = errors.Join(err, console.wait())
			}
			return err
		},
	}
	f := cmd.Flags()
	f.DurationVar(&iv.Heartbeat, "heartbeat", iv.Heartbeat, "how often runtimes are expected to beat")
	f.DurationVar(&iv.Stale, "stale", iv.Stale, "a runtime without a beat for this long is stale")
	f.DurationVar(&iv.Offline, "offline", iv.Offline, "a runtime without a beat for this long is offline")
	f.DurationVar(&iv.Idle, "idle", iv.Idle, "a beating runtime without a new activity for this long is idle")
	f.DurationVar(&ttl, "confirm-ttl", 0, "expiry of new confirmations (default $"+hub.ConfirmTTLEnv+", else 1h)")
	f.DurationVar(&lease, "lease", hub.DefaultPresenceLease, "on etcd: this hub's lease; its personas go offline everywhere, and another hub takes over its jobs, within this after it dies")
	f.Int64Var(&quotas.InboxBytes, "inbox-bytes", int64(hubapi.LimitOf(quota.InboxBytes).Max), "quota: bytes of messages one seat has not acked")
	f.Int64Var(&quotas.UnreadBytes, "unread-bytes", int64(hubapi.LimitOf(quota.UnreadBytes).Max), "quota: bytes personas sent one human that the human has not acked")
	f.BoolVarP(&verbose, "verbose", "v", false, "log debug messages")
	f.StringVar(&sshAddr, "ssh", "", "also serve the console over SSH on this address, e.g. :2222 (loopback unless a host is named; see docs/ssh.md)")
	f.DurationVar(&sshLimits.Idle, "ssh-idle", sshLimits.Idle, "end an SSH console session after this long without a key")
	f.DurationVar(&sshLimits.Session, "ssh-session", sshLimits.Session, "end an SSH console session this long after it connected")
	f.IntVar(&sshLimits.PerMinute, "ssh-rate", sshLimits.PerMinute, "SSH connections accepted a minute; more are closed before the handshake")
	return cmd
}

// serveWaker wakes the home's idle resident sessions when work arrives
// (docs/sessions.md), as the command's operator, while serve runs.
func (a *app) serveWaker(ctx context.Context, home registry.Home, log *slog.Logger) {
	ref, human, err := a.principal()
	if err == nil && !human {
		err = fmt.Errorf("%w: sessions are woken as an operator (--as human:NAME), not as %s", hubapi.ErrForbidden, ref)
	}
	var c *hubclient.Client
	if err == nil {
		c, err = hubclient.Dial(ctx, home.Dir, hubclient.AsOperator(ref))
	}
	if err != nil {
		log.Warn("idle sessions are not woken when work arrives", "reason", err)
		return
	}
	defer c.Close()
	err = wakeSessions(ctx, home.Dir, c, func(address string) { log.Info("woke the session", "persona", address) })
	if err != nil && ctx.Err() == nil {
		log.Warn("idle sessions are no longer woken when work arrives", "reason", err)
	}
}

// askHandOver asks the hub that holds home from inside another process (a
// console's, or a command's) to hand the home over to this serve, acting as
// the command's operator: only an enrolled human may stop a hub.
func (a *app) askHandOver(ctx context.Context, home registry.Home, out io.Writer) error {
	ref, human, err := a.principal()
	if err != nil {
		return err
	}
	if !human {
		return fmt.Errorf("%w: serve takes a home over only as an operator (--as human:NAME), not as %s", hubapi.ErrForbidden, ref)
	}
	c, err := hubclient.Dial(ctx, home.Dir, hubclient.AsOperator(ref))
	if err != nil {
		return err
	}
	defer c.Close()
	h, err := c.HandOver(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "the hub inside pid %d (a console or a command) hands %s over to this serve; its clients carry on here\n", h.PID, home.Dir)
	return nil
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
