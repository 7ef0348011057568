package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/hub"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

func init() { subcommands = append(subcommands, newPresenceCmd) }

func newPresenceCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "presence",
		Short: "Report and list persona presence (needs a running hub)",
		Long: `Presence lives in the hub: a persona runtime beats and reports what it is
doing; consoles show each persona as standing, active, idle, stale, offline or
retired. "presence beat" and "presence set" do from a shell what a runtime does:
they act with the persona generation's own token (<home>/personas/<id>/token).`,
		Example: `  virgo-tui presence beat work/core/lead
  virgo-tui presence set work/core/lead --activity "reviewing PR 42" --summary "core release prep"
  virgo-tui presence list -o json`,
	}
	cmd.AddCommand(newPresenceReportCmd(a, "beat"), newPresenceReportCmd(a, "set"), newPresenceListCmd(a))
	return cmd
}

func newPresenceReportCmd(a *app, verb string) *cobra.Command {
	var activity, summary, tokenFile string
	short := "Send one heartbeat as the persona at ADDRESS"
	if verb == "set" {
		short = "Set the activity and/or summary of the persona at ADDRESS"
	}
	cmd := &cobra.Command{
		Use:   verb + " ADDRESS [--activity TEXT] [--summary TEXT]",
		Short: short,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var act, sum *string
			if cmd.Flags().Changed("activity") {
				act = &activity
			}
			if cmd.Flags().Changed("summary") {
				sum = &summary
			}
			if verb == "set" && act == nil && sum == nil {
				return fmt.Errorf("presence set needs --activity or --summary (to only beat: presence beat %s)", args[0])
			}
			ctx := cmd.Context()
			home, err := registry.ResolveHome(a.homeFlag)
			if err != nil {
				return err
			}
			rt, err := dialRuntime(ctx, home, args[0], tokenFile)
			if err != nil {
				return err
			}
			defer rt.Close()
			var ack hub.BeatAck
			if act == nil && sum == nil {
				ack, err = rt.Beat(ctx)
			} else {
				ack, err = rt.SetPresence(ctx, act, sum)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %s (%d beats this hub run)\n", args[0], ack.State, ack.Beats)
			return nil
		},
	}
	cmd.Flags().StringVar(&activity, "activity", "", "what the persona is doing now")
	cmd.Flags().StringVar(&summary, "summary", "", "a one-line summary of its current work")
	cmd.Flags().StringVar(&tokenFile, "token-file", "", "the generation's token file (default: looked up from ADDRESS)")
	return cmd
}

// dialRuntime connects as the persona at address: with tokenFile if given,
// else with the token in the private directory of the seat's current
// holder, found by asking the hub as the operator.
func dialRuntime(ctx context.Context, home registry.Home, address, tokenFile string) (*hub.Client, error) {
	if tokenFile == "" {
		op, err := hub.Dial(ctx, home.Dir)
		if err != nil {
			return nil, err
		}
		v, err := op.Persona(ctx, address)
		op.Close()
		p := v.Persona
		if err != nil {
			return nil, err
		}
		if p.State != registry.StateActive {
			return nil, fmt.Errorf("%s (%s) is %s; only an active generation reports presence", p.Address, p.Name, p.State)
		}
		tokenFile = filepath.Join(home.GenerationDir(p.ID), hub.TokenFile)
	}
	return hub.Dial(ctx, home.Dir, hub.WithTokenFile(tokenFile))
}

func newPresenceListCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the presence of every persona generation the hub tracks",
		Args:  cobra.NoArgs,
	}
	out := addOutputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		ctx := cmd.Context()
		home, err := registry.ResolveHome(a.homeFlag)
		if err != nil {
			return err
		}
		c, err := hub.Dial(ctx, home.Dir)
		if err != nil {
			return err
		}
		defer c.Close()
		ps, err := c.Presence(ctx)
		if err != nil {
			return err
		}
		if *out == outputJSON {
			return writeJSON(cmd.OutOrStdout(), ps)
		}
		return presenceTable(cmd.OutOrStdout(), ps, time.Now())
	}
	return cmd
}

func presenceTable(w io.Writer, ps []hub.Presence, now time.Time) error {
	tw := newTable(w)
	fmt.Fprintln(tw, "ADDRESS\tNAME\tGEN\tSTATE\tLAST SEEN\tWAITING\tACTIVITY\tSUMMARY")
	for _, p := range ps {
		seen := "never"
		if !p.LastSeen.IsZero() {
			seen = now.Sub(p.LastSeen).Truncate(time.Second).String() + " ago"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%d\t%s\t%s\n", p.Address, p.Name, p.Generation, p.State, seen, p.Waiting, p.Activity, p.Summary)
	}
	return tw.Flush()
}
