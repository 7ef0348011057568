package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/demo"
	"github.com/virgo-hub/virgo-tui/internal/hub"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/hubconsole"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/ui"
)

func init() { subcommands = append(subcommands, newDemoCmd) }

func newDemoCmd(a *app) *cobra.Command {
	var headless, keep bool
	var dur time.Duration
	var seed uint64
	cmd := &cobra.Command{
		Use:   "demo [--headless] [--for DURATION] [--keep]",
		Short: "Open the console on a throw-away installation with simulated runtimes",
		Long: `Build a throw-away installation — root/secretary, two scopes (home, work), three
projects with a lead and a deputy each, one retired seat regranted to a new
generation, an activation and a retirement awaiting your decision — run a hub
for it, and start simulated persona runtimes that beat, change activity and ask
for confirmations of every kind — at a pace that keeps about eight waiting;
unanswered ones expire after three minutes ($VIRGO_CONFIRM_TTL), so the queue
stays readable. You are $VIRGO_PRINCIPAL, else human:$USER, else
human:owner. Then open the console on it: this is the first thing to run.

With --headless there is no console: the simulation runs for --for (until
Ctrl-C without it), a stand-in operator decides what is routed to you, and a
summary is printed. The home is removed afterwards unless --keep (or --home,
which builds the demo in a new directory of your choice and keeps it).`,
		Example: `  virgo-tui demo
  virgo-tui demo --headless --for 10s
  virgo-tui demo --home /tmp/virgo-demo --keep   # then: virgo-tui --home /tmp/virgo-demo presence list`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := serveContext(cmd.Context())
			defer stop()
			return runDemo(ctx, cmd, a.homeFlag, demoRun{headless: headless, keep: keep, dur: dur, seed: seed})
		},
	}
	f := cmd.Flags()
	f.BoolVar(&headless, "headless", false, "run the simulation without the console")
	f.DurationVar(&dur, "for", 0, "stop after this long (default: until Ctrl-C, or until the console quits)")
	f.BoolVar(&keep, "keep", false, "keep the demo home afterwards")
	f.Uint64Var(&seed, "seed", 1, "seed of the simulation")
	return cmd
}

type demoRun struct {
	headless, keep bool
	dur            time.Duration
	seed           uint64
}

func runDemo(ctx context.Context, cmd *cobra.Command, homeFlag string, o demoRun) (err error) {
	dir := homeFlag
	if dir == "" {
		if dir, err = os.MkdirTemp("", "virgo-demo-"); err != nil {
			return err
		}
	} else {
		o.keep = true
	}
	home, err := registry.CreateHome(dir)
	if err != nil {
		return err
	}
	if _, err := os.Stat(home.DBPath()); err == nil {
		return fmt.Errorf("demo: %s already holds an installation; give --home a new directory", home.Dir)
	}
	if !o.keep {
		defer os.RemoveAll(home.Dir)
	}
	errw := cmd.ErrOrStderr()

	// The demo's confirmations expire soon, so old asks leave the queue
	// on their own ($VIRGO_CONFIRM_TTL still decides when set).
	ttl, err := hub.ConfirmTTLFromEnv()
	if err != nil {
		return err
	}
	if ttl == 0 {
		ttl = demo.ConfirmTTL
	}
	hubCtx, stopHub := context.WithCancel(context.WithoutCancel(ctx))
	ready, served := make(chan struct{}), make(chan error, 1)
	go func() {
		served <- hub.Serve(hubCtx, hub.ServeOptions{Home: home, Hub: hub.Config{Intervals: demo.Intervals, ConfirmTTL: ttl},
			Ready: func(*hub.Hub) { close(ready) }})
	}()
	defer func() {
		stopHub()
		err = errors.Join(err, <-served)
	}()
	select {
	case <-ready:
	case err := <-served:
		served <- nil
		return err
	}

	operator, err := hubclient.DefaultOperator()
	if err != nil {
		return err
	}
	op, err := hubclient.Dial(ctx, home.Dir, hubclient.AsOperator(operator))
	if err != nil {
		return err
	}
	defer op.Close()
	in, err := demo.Seed(ctx, op, operator)
	if err != nil {
		return err
	}
	fmt.Fprintf(errw, "demo installation in %s (%d personas, you are %s); hub on %s\n",
		home.Dir, len(in.Active), operator, hubapi.SocketPath(home.Dir))

	simCtx, stopSim := context.WithCancel(ctx)
	defer stopSim()
	if o.dur > 0 {
		simCtx, stopSim = context.WithTimeout(ctx, o.dur)
		defer stopSim()
	}
	opts := demo.Options{Home: home.Dir, Operator: op, AutoDecide: o.headless, Seed: o.seed}
	if o.headless {
		st, err := demo.Simulate(simCtx, in, opts)
		if err != nil {
			return err
		}
		fmt.Fprintln(cmd.OutOrStdout(), st)
		return nil
	}
	simDone := make(chan error, 1)
	go func() {
		_, err := demo.Simulate(simCtx, in, opts)
		simDone <- err
	}()
	err = ui.Run(simCtx, hubconsole.New(op), consoleOptions(op, home.Dir))
	stopSim()
	return errors.Join(err, <-simDone)
}
