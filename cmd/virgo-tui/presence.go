package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
)

func init() { subcommands = append(subcommands, newPresenceCmd) }

func newPresenceCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "presence",
		Short: "Report and list persona presence",
		Long: `Presence lives in the hub: a persona runtime beats and reports what it is
doing; consoles show each persona as standing, active, idle, stale, offline or
retired. "presence beat" and "presence set" do from a shell what a runtime does:
they act with the persona generation's own token (<home>/personas/<id>/token),
found from ADDRESS as every command acting as a persona finds it. Like every
command they go through the hub; with none running, one runs in this process
for the command's length (presence lives in the hub, so a running hub or console
is where it matters).`,
		Example: `  virgo-tui presence beat work/core/lead
  virgo-tui presence set work/core/lead --activity "reviewing PR 42" --summary "core release prep"
  virgo-tui presence list -o json`,
	}
	cmd.AddCommand(newPresenceReportCmd(a, "beat"), newPresenceReportCmd(a, "set"), newPresenceListCmd(a))
	return cmd
}

func newPresenceReportCmd(a *app, verb string) *cobra.Command {
	var activity, summary string
	short := "Send one heartbeat as the persona at ADDRESS"
	if verb == "set" {
		short = "Set the activity and/or summary of the persona at ADDRESS"
	}
	cmd := &cobra.Command{
		Use:   verb + " ADDRESS [--activity TEXT] [--summary TEXT]",
		Short: short,
		Args:  cobra.ExactArgs(1),
		// The seats a runtime reports for: active personas' addresses.
		ValidArgsFunction: a.completeActiveAddresses,
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
			report := func(ctx context.Context, rt *hubclient.Client) error {
				var ack hubapi.BeatAck
				var err error
				if act == nil && sum == nil {
					ack, err = rt.Beat(ctx)
				} else {
					ack, err = rt.SetPresence(ctx, act, sum)
				}
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s: %s (%d beats this hub run)\n", args[0], ack.State, ack.Beats)
				return err
			}
			return a.actingAs(args[0]).withClient(cmd.Context(), report)
		},
	}
	cmd.Flags().StringVar(&activity, "activity", "", "what the persona is doing now")
	cmd.Flags().StringVar(&summary, "summary", "", "a one-line summary of its current work")
	return cmd
}

// actingAs is the app acting as principal ref (a persona address or name,
// or human:<name>) instead of --as / $VIRGO_PRINCIPAL: its client finds the
// persona's token as every command acting as a persona does (app.client).
func (a *app) actingAs(ref string) *app {
	b := *a
	b.as = ref
	return &b
}

func newPresenceListCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the presence of every persona generation the hub tracks",
		Args:  cobra.NoArgs,
	}
	out := addOutputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
			ps, err := c.Presence(ctx)
			if err != nil {
				return err
			}
			if *out == outputJSON {
				return writeJSON(cmd.OutOrStdout(), ps)
			}
			return presenceTable(cmd.OutOrStdout(), ps, time.Now())
		})
	}
	return cmd
}

func presenceTable(w io.Writer, ps []hubapi.Presence, now time.Time) error {
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
