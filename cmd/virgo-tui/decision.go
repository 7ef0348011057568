package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/decisions"
	"github.com/virgo-hub/virgo-tui/internal/paging"
)

func init() { subcommands = append(subcommands, newDecisionCmd) }

func newDecisionCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "decision",
		Short: "Raise, list and resolve decisions, as a persona (through the hub's tool calls)",
		Long: `A decision is raised with a question, two or more options and context, in the
raiser's scope and project, and resolved once with one of its options. The
resolution records who resolved it and whose decision it is: a project lead's
own; a secretary's only as a relay of its bound human's explicit decision, and a
coordinator's only with its lane approver's — such a call waits on a
confirmation (exit 3) that the authority decides in the console; retry it with
--correlation-id once approved, and the resolution records the authority as the
decider.

Each command is one tool call (raise_decision, list_decisions,
resolve_decision) under the acting persona's stamp (--as ADDRESS, or a human
operator with --persona).`,
	}
	cmd.AddCommand(newDecisionRaiseCmd(a), newDecisionListCmd(a), newDecisionResolveCmd(a))
	return cmd
}

func printDecision(w io.Writer, d decisions.Decision) error {
	where := d.Scope
	if d.Project != "" {
		where += "/" + d.Project
	}
	fmt.Fprintf(w, "decision %s (%s, raised by %s): %s\n  options: %s\n", d.ID, where, d.RaisedBy, d.Question, strings.Join(d.Options, " | "))
	if r := d.Resolution; r != nil {
		fmt.Fprintf(w, "  resolved: %q by %s, decided by %s", r.Option, r.ResolvedBy, r.DecidedBy)
		if r.ConfirmationID != "" {
			fmt.Fprintf(w, " (confirmation %s)", r.ConfirmationID)
		}
		fmt.Fprintln(w)
	}
	return nil
}

func decisionResult(w io.Writer, result json.RawMessage) error {
	d, err := decodeResult[decisions.Decision](result)
	if err != nil {
		return err
	}
	return printDecision(w, d)
}

func newDecisionRaiseCmd(a *app) *cobra.Command {
	var question, context string
	var options []string
	cmd := &cobra.Command{
		Use:     "raise --question TEXT --option A --option B [--context TEXT]",
		Short:   "Raise a decision (raise_decision)",
		Example: "  virgo-tui decision raise --as work/core/lead --question 'Which parser?' --option hand-written --option generated",
		Args:    cobra.NoArgs,
	}
	f := addToolFlags(cmd)
	cmd.Flags().StringVar(&question, "question", "", "the question, one line (required)")
	cmd.Flags().StringArrayVar(&options, "option", nil, "a choice; give two or more (required)")
	cmd.Flags().StringVar(&context, "context", "", "what the resolver needs to know")
	cmd.MarkFlagRequired("question")
	cmd.MarkFlagRequired("option")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		args := map[string]any{"question": question, "options": options}
		if context != "" {
			args["context"] = context
		}
		return a.callTool(cmd, f, "raise_decision", args, decisionResult)
	}
	return cmd
}

func newDecisionListCmd(a *app) *cobra.Command {
	var state, after string
	var limit int
	cmd := &cobra.Command{
		Use:     "list [--state open|resolved] [--after TOKEN] [--limit N]",
		Short:   "List the decisions of the persona's scope or project, a page at a time (list_decisions)",
		Example: "  virgo-tui decision list --as work/core/lead --state open -o json",
		Args:    cobra.NoArgs,
	}
	f := addToolFlags(cmd)
	cmd.Flags().StringVar(&state, "state", "", "open or resolved (default both)")
	addPageFlags(cmd, &after, &limit)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		args := pageArgs(map[string]any{}, after, limit)
		if state != "" {
			args["state"] = state
		}
		return a.callTool(cmd, f, "list_decisions", args, func(w io.Writer, result json.RawMessage) error {
			page, err := decodeResult[paging.Page[decisions.Decision]](result)
			if err != nil {
				return err
			}
			tw := newTable(w)
			fmt.Fprintln(tw, "DECISION\tSTATE\tRAISED BY\tRAISED\tQUESTION")
			for _, d := range page.Items {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", d.ID, d.State, d.RaisedBy, d.Raised.Local().Format(time.DateTime), d.Question)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			return printNext(w, page.Next)
		})
	}
	return cmd
}

func newDecisionResolveCmd(a *app) *cobra.Command {
	var choice, reason string
	cmd := &cobra.Command{
		Use:   "resolve DECISION --choice OPTION [--reason TEXT]",
		Short: "Resolve a decision with one of its options (resolve_decision)",
		Example: `  virgo-tui decision resolve --as work/core/lead d-77aa --choice generated --reason 'smaller'
  virgo-tui decision resolve --as root/secretary d-77aa --choice generated --correlation-id relay-1   # exit 3: henry decides
  virgo-tui decision resolve --as root/secretary d-77aa --choice generated --correlation-id relay-1   # once approved`,
		Args: cobra.ExactArgs(1),
	}
	f := addToolFlags(cmd)
	cmd.Flags().StringVar(&choice, "choice", "", "one of the decision's options (required)")
	cmd.Flags().StringVar(&reason, "reason", "", "why")
	cmd.MarkFlagRequired("choice")
	cmd.RunE = func(cmd *cobra.Command, argv []string) error {
		args := map[string]any{"decision": argv[0], "choice": choice}
		if reason != "" {
			args["reason"] = reason
		}
		return a.callTool(cmd, f, "resolve_decision", args, decisionResult)
	}
	return cmd
}
