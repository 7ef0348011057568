package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
	"github.com/virgo-hub/virgo-tui/internal/tasks"
)

func init() { subcommands = append(subcommands, newTaskCmd) }

func newTaskCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "task",
		Short: "Assign, list, show and report tasks (the task tools, through the hub)",
		Long: `Tasks are bounded work a lead assigns to its deputy (a secretary or coordinator within
its subtree); the assignee reports progress with evidence. Each command is the persona
tool of the same name (assign_task, list_tasks, get_task, report_task, cancel_task_v1,
reassign_task_v1) called through
the hub and decided under the persona's stamp: act as the persona (--as ADDRESS, with
its token) or as an operator for it (--as human:NAME --persona ADDRESS).

Exit status: 0 done, 3 waiting for a confirmation (run again with --correlation-id),
4 denied, 1 error.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newTaskAssignCmd(a), newTaskListCmd(a), newTaskShowCmd(a), newTaskReportCmd(a), newTaskCancelCmd(a), newTaskReassignCmd(a))
	return cmd
}

func newTaskCancelCmd(a *app) *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:     "cancel TASK --reason TEXT",
		Short:   "Cancel a task, with the reason; its reports and runs stay (" + stamp.CancelTaskTool + ")",
		Example: `  virgo-tui task cancel t-3f9a0c2d41e85b7a --as work/core/lead --reason "superseded by t-77"`,
		Args:    cobra.ExactArgs(1),
	}
	f := addToolFlags(cmd)
	cmd.Flags().StringVar(&reason, "reason", "", "why it is cancelled (required)")
	cmd.MarkFlagRequired("reason")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return a.callTool(cmd, f, stamp.CancelTaskTool, map[string]any{"task": args[0], "reason": reason}, printTask)
	}
	return cmd
}

func newTaskReassignCmd(a *app) *cobra.Command {
	var to, reason string
	cmd := &cobra.Command{
		Use:     "reassign TASK --to ADDRESS --reason TEXT",
		Short:   "Move a task to another seat of its project, with the reason (" + stamp.ReassignTaskTool + ")",
		Example: `  virgo-tui task reassign t-3f9a0c2d41e85b7a --as work/core/lead --to work/core/lead --reason "the deputy retired; I finish it"`,
		Args:    cobra.ExactArgs(1),
	}
	f := addToolFlags(cmd)
	cmd.Flags().StringVar(&to, "to", "", "the new assignee's address (required)")
	cmd.Flags().StringVar(&reason, "reason", "", "why it moves (required)")
	cmd.MarkFlagRequired("to")
	cmd.MarkFlagRequired("reason")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return a.callTool(cmd, f, stamp.ReassignTaskTool, map[string]any{"task": args[0], "assignee": to, "reason": reason}, printTask)
	}
	return cmd
}

func newTaskAssignCmd(a *app) *cobra.Command {
	var to, title, brief string
	var bounds []string
	cmd := &cobra.Command{
		Use:     "assign --to ADDRESS --title TITLE --brief TEXT [--bound TEXT]...",
		Short:   "Assign a task to a persona under this one (assign_task)",
		Example: `  virgo-tui task assign --as work/core/lead --to work/core/deputy --title "port the parser" --brief "make it total" --bound "internal/parse only"`,
		Args:    cobra.NoArgs,
	}
	f := addToolFlags(cmd)
	cmd.Flags().StringVar(&to, "to", "", "the assignee's address (required)")
	cmd.Flags().StringVar(&title, "title", "", "one line (required)")
	cmd.Flags().StringVar(&brief, "brief", "", "what to do (required)")
	cmd.Flags().StringArrayVar(&bounds, "bound", nil, "a limit the work stays within (repeat)")
	for _, name := range []string{"to", "title", "brief"} {
		cmd.MarkFlagRequired(name)
	}
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		args := map[string]any{"assignee": to, "title": title, "brief": brief}
		if len(bounds) > 0 {
			args["bounds"] = bounds
		}
		return a.callTool(cmd, f, "assign_task", args, printTask)
	}
	return cmd
}

func newTaskListCmd(a *app) *cobra.Command {
	var by bool
	var state, after string
	var limit int
	cmd := &cobra.Command{
		Use:   "list [--by-me] [--state STATE] [--after TOKEN] [--limit N]",
		Short: "List the persona's tasks, a page at a time (list_tasks)",
		Example: `  virgo-tui task list --as work/core/deputy
  virgo-tui task list --as work/core/lead --by-me --state done -o json`,
		Args: cobra.NoArgs,
	}
	f := addToolFlags(cmd)
	cmd.Flags().BoolVar(&by, "by-me", false, "the tasks the persona assigned, not those assigned to it")
	cmd.Flags().StringVar(&state, "state", "", "only tasks in this state: "+strings.Join(tasks.States, ", "))
	cmd.Flags().StringVar(&after, "after", "", "continue after the previous page (its NEXT token)")
	cmd.Flags().IntVar(&limit, "limit", 0, fmt.Sprintf("tasks per page, 1 to %d (default %d)", paging.MaxLimit, paging.DefaultLimit))
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		args := map[string]any{}
		if by {
			args["which"] = string(tasks.AssignedBy)
		}
		for k, v := range map[string]string{"state": state, "after": after} {
			if v != "" {
				args[k] = v
			}
		}
		if limit != 0 {
			args["limit"] = limit
		}
		return a.callTool(cmd, f, "list_tasks", args, printTaskPage)
	}
	return cmd
}

func newTaskShowCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "show TASK",
		Short:   "Show a task with its progress reports (get_task)",
		Example: "  virgo-tui task show t-3f9a0c2d41e85b7a --as work/core/deputy -o json",
		Args:    cobra.ExactArgs(1),
	}
	f := addToolFlags(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return a.callTool(cmd, f, "get_task", map[string]any{"task": args[0]}, printTask)
	}
	return cmd
}

func newTaskReportCmd(a *app) *cobra.Command {
	var progress, state string
	var evidence []string
	cmd := &cobra.Command{
		Use:     "report TASK --progress TEXT [--evidence REF]... [--state STATE]",
		Short:   "Report progress on a task assigned to the persona (report_task)",
		Example: `  virgo-tui task report t-3f9a0c2d41e85b7a --as work/core/deputy --progress "parser ported" --evidence "run r-1" --state done`,
		Args:    cobra.ExactArgs(1),
	}
	f := addToolFlags(cmd)
	cmd.Flags().StringVar(&progress, "progress", "", "what was done (required)")
	cmd.Flags().StringArrayVar(&evidence, "evidence", nil, "a reference: a path, a run or artifact id, a link (repeat)")
	cmd.Flags().StringVar(&state, "state", "", "the task's new state: "+strings.Join(tasks.ReportStates, ", "))
	cmd.MarkFlagRequired("progress")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		in := map[string]any{"task": args[0], "progress": progress}
		if len(evidence) > 0 {
			in["evidence"] = evidence
		}
		if state != "" {
			in["state"] = state
		}
		return a.callTool(cmd, f, "report_task", in, printTask)
	}
	return cmd
}

// printTask prints one task and its reports.
func printTask(w io.Writer, result json.RawMessage) error {
	var t tasks.Task
	if err := strictjson.DecodeOpen(result, &t); err != nil {
		return err
	}
	fmt.Fprintf(w, "task %s (%s/%s): %s\n", t.ID, t.Scope, t.Project, t.Title)
	fmt.Fprintf(w, "  state     %s\n  assignee  %s (generation %d)\n  assigned  by %s at %s\n", t.State, t.Assignee.Address,
		t.Assignee.Generation, partyName(t.By), t.Created.Local().Format(time.DateTime))
	if t.Brief != "" {
		fmt.Fprintf(w, "  brief     %s\n", strings.ReplaceAll(t.Brief, "\n", "\n            "))
	}
	for _, b := range t.Bounds {
		fmt.Fprintf(w, "  bound     %s\n", b)
	}
	for _, r := range t.Reports {
		fmt.Fprintf(w, "  report    %s %s", r.At.Local().Format(time.DateTime), r.Progress)
		if r.State != "" {
			fmt.Fprintf(w, " [%s]", r.State)
		}
		fmt.Fprintln(w)
		for _, e := range r.Evidence {
			fmt.Fprintf(w, "            evidence: %s\n", e)
		}
	}
	return nil
}

// printTaskPage prints one page of tasks as a table, and the token of
// the next page.
func printTaskPage(w io.Writer, result json.RawMessage) error {
	var page paging.Page[tasks.Task]
	if err := strictjson.DecodeOpen(result, &page); err != nil {
		return err
	}
	tw := newTable(w)
	fmt.Fprintln(tw, "TASK\tSTATE\tASSIGNEE\tBY\tTITLE")
	for _, t := range page.Items {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.ID, t.State, t.Assignee.Address, partyName(t.By), t.Title)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if page.Next != "" {
		_, err := fmt.Fprintf(w, "NEXT %s\n", page.Next)
		return err
	}
	return nil
}

// partyName is a task's party as an operator reads it.
func partyName(p tasks.Party) string {
	if p.Address != "" {
		return p.Address
	}
	return p.ID
}
