package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
)

func newConfirmAssignCmd(a *app) *cobra.Command {
	var persona, task string
	var remove bool
	cmd := &cobra.Command{
		Use:   "assign --persona DEPUTY --task SCOPE/PROJECT/TASK [--remove]",
		Short: "Assign a task to a coder-deputy (as its owning lead or bound human)",
		Long: `A coder-deputy's run and task tools reach its assigned tasks without asking; a run
or task of its project outside them is a deputy-scope confirmation for the owning
lead. This records (or with --remove takes back) one assigned task. Who assigns is
the acting principal (--as / $VIRGO_PRINCIPAL): the deputy's owning lead (acting
with its token) or its bound human. A deputy never assigns itself a task, and a
request cannot assert assignments. Assignments belong to the deputy's generation:
a regranted seat starts with none.`,
		Example: `  virgo-tui confirm assign --as work/core/lead --persona work/core/deputy --task work/core/t-12
  virgo-tui confirm assign --as human:henry --persona work/core/deputy --task work/core/t-12 --remove`,
		Args: cobra.NoArgs,
	}
	out := addOutputFlag(cmd)
	cmd.Flags().StringVar(&persona, "persona", "", "the deputy: ADDRESS or NAME (required)")
	cmd.Flags().StringVar(&task, "task", "", "the task: SCOPE/PROJECT/TASK, in the deputy's project (required)")
	cmd.Flags().BoolVar(&remove, "remove", false, "take the task back")
	cmd.MarkFlagRequired("persona")
	cmd.MarkFlagRequired("task")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
			if remove {
				if err := c.Unassign(ctx, persona, task); err != nil {
					return err
				}
				if *out == outputJSON {
					return writeJSON(cmd.OutOrStdout(), map[string]any{"persona": persona, "task": task, "removed": true})
				}
				_, err := fmt.Fprintf(cmd.OutOrStdout(), "task %s is no longer assigned to %s\n", task, persona)
				return err
			}
			as, err := c.Assign(ctx, persona, task)
			if err != nil {
				return err
			}
			if *out == outputJSON {
				return writeJSON(cmd.OutOrStdout(), as)
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "task %s assigned to %s (generation %d) by %s\n", as.Task, as.Persona, as.Generation, as.AssignedBy)
			return err
		})
	}
	return cmd
}

func newConfirmAssignmentsCmd(a *app) *cobra.Command {
	var persona string
	cmd := &cobra.Command{
		Use:     "assignments --persona DEPUTY",
		Short:   "List the tasks assigned to a coder-deputy",
		Example: "  virgo-tui confirm assignments --persona work/core/deputy -o json",
		Args:    cobra.NoArgs,
	}
	out := addOutputFlag(cmd)
	cmd.Flags().StringVar(&persona, "persona", "", "the deputy: ADDRESS or NAME (required)")
	cmd.MarkFlagRequired("persona")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		return a.withClient(cmd.Context(), func(ctx context.Context, c *hubclient.Client) error {
			as, err := c.Assignments(ctx, persona)
			if err != nil {
				return err
			}
			if *out == outputJSON {
				if as == nil {
					as = []confirm.Assignment{}
				}
				return writeJSON(cmd.OutOrStdout(), as)
			}
			tw := newTable(cmd.OutOrStdout())
			fmt.Fprintln(tw, "TASK\tPERSONA\tGEN\tASSIGNED BY\tAT")
			for _, x := range as {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", x.Task, x.Persona, x.Generation, x.AssignedBy, x.Time.Local().Format(time.DateTime))
			}
			return tw.Flush()
		})
	}
	return cmd
}
