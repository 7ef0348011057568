package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/runs"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/termtext"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
)

func init() { subcommands = append(subcommands, newRunCmd) }

func newRunCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Runs of tasks and their artifacts, as a persona (through the hub's tool calls)",
		Long: `A run belongs to a task and moves through a state machine:
  pending → running | cancelled;  running → blocked | succeeded | failed | cancelled;
  blocked → running | failed | cancelled;  succeeded, failed and cancelled are final.
An illegal move is refused by name. Events are append-only (at most 1000 a run);
an artifact records its name, size, sha256 and workspace path.

Each command is one tool call (create_run, advance_run, append_run_event,
record_artifact, list_runs, get_run) decided under the acting persona's stamp:
act as the persona with --as ADDRESS (its token), or as a human operator for
it with --persona. A call that needs a confirmation exits 3 with its id: retry
it with --correlation-id once approved. A denied call exits 4.`,
	}
	cmd.AddCommand(newRunCreateCmd(a), newRunAdvanceCmd(a), newRunEventCmd(a), newRunArtifactCmd(a), newRunReadArtifactCmd(a), newRunListCmd(a), newRunShowCmd(a))
	return cmd
}

func printRun(w io.Writer, r runs.Run) error {
	_, err := fmt.Fprintf(w, "run %s of task %s (%s/%s): %s, %d events, %d artifacts — %s\n", r.ID, r.Task, r.Scope, r.Project,
		r.State, r.Events, r.Artifacts, r.Title)
	return err
}

func runResult(w io.Writer, result json.RawMessage) error {
	r, err := decodeResult[runs.Run](result)
	if err != nil {
		return err
	}
	return printRun(w, r)
}

func newRunCreateCmd(a *app) *cobra.Command {
	var task, title string
	cmd := &cobra.Command{
		Use:     "create --task TASK [--title TEXT]",
		Short:   "Start a run of a task (create_run)",
		Example: "  virgo-tui run create --as work/core/deputy --task t-1a2b --title 'build the parser'",
		Args:    cobra.NoArgs,
	}
	f := addToolFlags(cmd)
	cmd.Flags().StringVar(&task, "task", "", "the task's id (required)")
	cmd.Flags().StringVar(&title, "title", "", "one line")
	cmd.MarkFlagRequired("task")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		args := map[string]any{"task": task}
		if title != "" {
			args["title"] = title
		}
		return a.callTool(cmd, f, "create_run", args, runResult)
	}
	return cmd
}

func newRunAdvanceCmd(a *app) *cobra.Command {
	var state, note string
	cmd := &cobra.Command{
		Use:     "advance RUN --state STATE [--note TEXT]",
		Short:   "Move a run to its next state (advance_run)",
		Example: "  virgo-tui run advance --as work/core/deputy r-9f8e --state running --note 'starting'",
		Args:    cobra.ExactArgs(1),
	}
	f := addToolFlags(cmd)
	cmd.Flags().StringVar(&state, "state", "", "running, blocked, succeeded, failed or cancelled (required)")
	cmd.Flags().StringVar(&note, "note", "", "why")
	cmd.MarkFlagRequired("state")
	cmd.RunE = func(cmd *cobra.Command, argv []string) error {
		args := map[string]any{"run": argv[0], "state": state}
		if note != "" {
			args["note"] = note
		}
		return a.callTool(cmd, f, "advance_run", args, runResult)
	}
	return cmd
}

func newRunEventCmd(a *app) *cobra.Command {
	var kind, text string
	cmd := &cobra.Command{
		Use:     "event RUN --text TEXT [--kind KIND]",
		Short:   "Append an event to a run's log (append_run_event)",
		Example: "  virgo-tui run event --as work/core/deputy r-9f8e --kind output --text 'parsed 3 of 4 files'",
		Args:    cobra.ExactArgs(1),
	}
	f := addToolFlags(cmd)
	cmd.Flags().StringVar(&text, "text", "", "the event (required)")
	cmd.Flags().StringVar(&kind, "kind", "", "what happened: progress (the default), output, error ...")
	cmd.MarkFlagRequired("text")
	cmd.RunE = func(cmd *cobra.Command, argv []string) error {
		args := map[string]any{"run": argv[0], "text": text}
		if kind != "" {
			args["kind"] = kind
		}
		return a.callTool(cmd, f, "append_run_event", args, func(w io.Writer, result json.RawMessage) error {
			ev, err := decodeResult[runs.Event](result)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(w, "event %d (%s) on run %s\n", ev.Seq, ev.Kind, argv[0])
			return err
		})
	}
	return cmd
}

func newRunArtifactCmd(a *app) *cobra.Command {
	var name, path string
	cmd := &cobra.Command{
		Use:   "artifact RUN --name NAME --path WORKSPACE-PATH",
		Short: "Record a file of the persona's workspace as an artifact of a run (record_artifact)",
		Long: `Records a file of the persona's workspace as an artifact of the run: the hub reads
the file and records its size and sha256 (sha256:<hex>) itself; a file that is not
there is refused.`,
		Example: "  virgo-tui run artifact --as work/core/deputy r-9f8e --name findings --path FINDINGS.md",
		Args:    cobra.ExactArgs(1),
	}
	f := addToolFlags(cmd)
	cmd.Flags().StringVar(&name, "name", "", "the artifact's name, unique in the run (required)")
	cmd.Flags().StringVar(&path, "path", "", "the file, relative to the workspace root (required)")
	cmd.MarkFlagRequired("name")
	cmd.MarkFlagRequired("path")
	cmd.RunE = func(cmd *cobra.Command, argv []string) error {
		args := map[string]any{"run": argv[0], "name": name, "path": path}
		return a.callTool(cmd, f, "record_artifact", args, func(w io.Writer, result json.RawMessage) error {
			art, err := decodeResult[runs.Artifact](result)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(w, "artifact %d of run %s: %s, %d bytes, %s, at %s\n", art.Seq, art.Run, art.Name, art.Size, art.SHA256, art.Path)
			return err
		})
	}
	return cmd
}

func newRunReadArtifactCmd(a *app) *cobra.Command {
	var offset, length int64
	cmd := &cobra.Command{
		Use:     "read-artifact RUN NAME [--offset N] [--length N]",
		Short:   "Print a byte range of a run's artifact, from the workspace that recorded it (" + stamp.ReadArtifactTool + ")",
		Example: "  virgo-tui run read-artifact --as work/core/lead r-9f8e findings",
		Args:    cobra.ExactArgs(2),
	}
	f := addToolFlags(cmd)
	cmd.Flags().Int64Var(&offset, "offset", 0, "the first byte to read")
	cmd.Flags().Int64Var(&length, "length", 0, "at most this many bytes (default and most: 1 MiB)")
	cmd.RunE = func(cmd *cobra.Command, argv []string) error {
		args := map[string]any{"run": argv[0], "name": argv[1]}
		if offset != 0 {
			args["offset"] = offset
		}
		if length != 0 {
			args["length"] = length
		}
		return a.callTool(cmd, f, stamp.ReadArtifactTool, args, func(w io.Writer, result json.RawMessage) error {
			page, err := decodeResult[usecase.ArtifactPage](result)
			if err != nil {
				return err
			}
			if page.Text == "" && len(page.Data) > 0 {
				_, err = fmt.Fprintf(w, "artifact %s of run %s: %d bytes of binary data at %d (-o json shows them)\n", page.Artifact.Name, page.Artifact.Run, len(page.Data), page.Offset)
				return err
			}
			if _, err = io.WriteString(w, termtext.CleanLines(page.Text)); err != nil {
				return err
			}
			if !page.EOF {
				_, err = fmt.Fprintf(w, "\n(more from --offset %d)\n", page.NextOffset)
			}
			return err
		})
	}
	return cmd
}

func newRunListCmd(a *app) *cobra.Command {
	var task, after string
	var limit int
	cmd := &cobra.Command{
		Use:     "list --task TASK [--after TOKEN] [--limit N]",
		Short:   "List a task's runs, a page at a time (list_runs)",
		Example: "  virgo-tui run list --as work/core/lead --task t-1a2b -o json",
		Args:    cobra.NoArgs,
	}
	f := addToolFlags(cmd)
	cmd.Flags().StringVar(&task, "task", "", "the task's id (required)")
	addPageFlags(cmd, &after, &limit)
	cmd.MarkFlagRequired("task")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		args := pageArgs(map[string]any{"task": task}, after, limit)
		return a.callTool(cmd, f, "list_runs", args, func(w io.Writer, result json.RawMessage) error {
			page, err := decodeResult[paging.Page[runs.Run]](result)
			if err != nil {
				return err
			}
			tw := newTable(w)
			fmt.Fprintln(tw, "RUN\tSTATE\tEVENTS\tARTIFACTS\tUPDATED\tTITLE")
			for _, r := range page.Items {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", r.ID, r.State, r.Events, r.Artifacts, r.Updated.Local().Format(time.DateTime), r.Title)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			return printNext(w, page.Next)
		})
	}
	return cmd
}

func newRunShowCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "show RUN",
		Short:   "Show a run with the first page of its log and its artifacts (get_run)",
		Example: "  virgo-tui run show --as work/core/lead r-9f8e",
		Args:    cobra.ExactArgs(1),
	}
	f := addToolFlags(cmd)
	cmd.RunE = func(cmd *cobra.Command, argv []string) error {
		return a.callTool(cmd, f, "get_run", map[string]any{"run": argv[0]}, func(w io.Writer, result json.RawMessage) error {
			v, err := decodeResult[usecase.RunView](result)
			if err != nil {
				return err
			}
			if err := printRun(w, v.Run); err != nil {
				return err
			}
			for _, e := range v.Log.Items {
				what := e.Kind
				if e.Kind == runs.EventMove {
					what = fmt.Sprintf("%s → %s", e.From, e.To)
				}
				fmt.Fprintf(w, "  %3d %s %s %s: %s\n", e.Seq, e.Time.Local().Format(time.DateTime), e.By, what, e.Text)
			}
			for _, art := range v.ArtifactSet {
				fmt.Fprintf(w, "  artifact %s: %d bytes, sha256 %s, at %s\n", art.Name, art.Size, art.SHA256, art.Path)
			}
			return printNext(w, v.Log.Next)
		})
	}
	return cmd
}

// addPageFlags adds a list's page flags.
func addPageFlags(cmd *cobra.Command, after *string, limit *int) {
	cmd.Flags().StringVar(after, "after", "", "continue after this page token (the previous page's next)")
	cmd.Flags().IntVar(limit, "limit", 0, fmt.Sprintf("items per page, 1 to %d (default %d)", paging.MaxLimit, paging.DefaultLimit))
}

// pageArgs adds the page flags that were given to a call's arguments.
func pageArgs(args map[string]any, after string, limit int) map[string]any {
	if after != "" {
		args["after"] = after
	}
	if limit != 0 {
		args["limit"] = limit
	}
	return args
}

// printNext tells how to read the next page, when there is one.
func printNext(w io.Writer, next string) error {
	if next == "" {
		return nil
	}
	_, err := fmt.Fprintf(w, "more: --after %s\n", next)
	return err
}
