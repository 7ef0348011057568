package main

import (
	"fmt"
	"io"
	"sort"

	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// validateResult is one file's verdict in `stamp validate -o json`.
type validateResult struct {
	File     string          `json:"file"`
	OK       bool            `json:"ok"`
	Version  int             `json:"schema_version,omitempty"`
	Address  string          `json:"address,omitempty"`
	Hash     string          `json:"hash,omitempty"`
	Problems []stamp.Problem `json:"problems"`
}

func newStampValidateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check stamp files against the schema and the class matrix, listing every problem",
		Long: `Check each file with the version's reader, the JSON Schema (v3) and the semantic
validator, and list every problem with the rule it breaks. Exit status 1 if any file is refused.`,
		Example: `  virgo-tui stamp validate ~/.local/share/virgo/personas/*/CAPABILITY-STAMP.json
  virgo-tui stamp validate old-stamp.json -o json | jq '.[].problems[].rule'`,
		Args: cobra.MinimumNArgs(1),
	}
	out := addOutputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		var results []validateResult
		bad := false
		for _, file := range args {
			res := validateResult{File: file, Problems: []stamp.Problem{}}
			s, b, err := readStampFile(file)
			switch {
			case err == nil:
				res.OK, res.Version, res.Address = true, s.SchemaVersion, s.Path.Address
				res.Hash, _ = stamp.Hash(b)
			case stamp.ProblemsOf(err) != nil:
				res.Problems = stamp.ProblemsOf(err)
			default:
				res.Problems = []stamp.Problem{{Rule: stamp.RuleJSON, Message: err.Error()}}
			}
			bad = bad || !res.OK
			results = append(results, res)
		}
		w := cmd.OutOrStdout()
		if *out == outputJSON {
			if err := writeJSON(w, results); err != nil {
				return err
			}
		} else {
			for _, r := range results {
				if r.OK {
					fmt.Fprintf(w, "%s: ok (v%d %s, %s)\n", r.File, r.Version, r.Address, r.Hash)
					continue
				}
				fmt.Fprintf(w, "%s: refused, %d problem(s)\n", r.File, len(r.Problems))
				for _, p := range r.Problems {
					fmt.Fprintf(w, "  %s\n", p)
				}
			}
		}
		if bad {
			return &exitError{code: 1, err: errReported}
		}
		return nil
	}
	return cmd
}

func newStampShowCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "show FILE|ADDRESS|NAME",
		Short: "Show a stamp: identity, path, bindings and tools",
		Long: `Show a stamp file, or the stamp of a registered persona's current generation (loaded
against the hash its record holds: a changed file is refused). -o json prints the stamp as v3
JSON; a v1/v2 file is shown as the stamp it maps to and is never rewritten.`,
		Example: `  virgo-tui stamp show work/core/lead
  virgo-tui stamp show ./CAPABILITY-STAMP.json -o json | jq -r '.tools[].name'`,
		Args: cobra.ExactArgs(1),
	}
	out := addOutputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		s, err := a.loadStampArg(cmd.Context(), args[0])
		if err != nil {
			return err
		}
		return writeStamp(cmd.OutOrStdout(), *out, s)
	}
	return cmd
}

// writeStamp prints a stamp as a table for people or as its v3 JSON.
func writeStamp(w io.Writer, o outputFormat, s stamp.Stamp) error {
	if o == outputJSON {
		b, err := stamp.Marshal(s)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	fmt.Fprintf(w, "address      %s (%s, schema v%d)\n", s.Path.Address, s.Path.Profile, s.SchemaVersion)
	fmt.Fprintf(w, "persona      %s, generation %d (%s)\n", s.Persona.Name, s.Persona.Generation, s.Persona.ID)
	fmt.Fprintf(w, "composition  %s\n", s.CompositionHash)
	fmt.Fprintf(w, "graph        %s\n", s.GraphNamespace)
	fmt.Fprintf(w, "human        %s", s.Authority.Human)
	if s.Authority.OwningLead != "" {
		fmt.Fprintf(w, "; owning lead %s", s.Authority.OwningLead)
	}
	if s.Authority.LaneApprover != "" {
		fmt.Fprintf(w, "; lane approver %s", s.Authority.LaneApprover)
	}
	fmt.Fprintln(w)
	for _, b := range s.HumanSurfaces {
		fmt.Fprintf(w, "surface      %s = %s\n", b.Surface, b.Target)
	}
	fmt.Fprintf(w, "workspace    %s, writes %v\n", s.Workspace.Root, s.Workspace.MutablePaths)
	if s.Workspace.Repository != "" {
		fmt.Fprintf(w, "repository   %s\n", s.Workspace.Repository)
	}
	fmt.Fprintln(w)
	tw := newTable(w)
	fmt.Fprintln(tw, "TOOL\tHANDLER ACTION\tACCESS\tSCOPE\tBUNDLE")
	for _, t := range s.Tools {
		inv, _ := stamp.LookupTool(t.Name)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.Name, t.HandlerAction, t.Access, t.Scope, inv.Bundle)
	}
	return tw.Flush()
}

func newStampHashCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "hash FILE",
		Short: "Print a stamp file's hash (SHA-256 of its RFC 8785 canonical form)",
		Long: `Print sha256:<hex> over the RFC 8785 (JCS) canonical form of the file's JSON: the value the
persona's record holds. Any JCS implementation recomputes it.`,
		Example: `  virgo-tui stamp hash CAPABILITY-STAMP.json`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, b, err := readStampFile(args[0])
			if b == nil {
				return err
			}
			h, herr := stamp.Hash(b)
			if herr != nil {
				return herr
			}
			fmt.Fprintln(cmd.OutOrStdout(), h)
			if err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: this stamp is not valid:\n%v\n", err)
			}
			return nil
		},
	}
}

func newStampProjectCmd(a *app) *cobra.Command {
	var consumer string
	var launch launchSpec
	cmd := &cobra.Command{
		Use:   "project FILE|ADDRESS|NAME",
		Short: "Derive the MCP, handler and launcher projections and check their equality",
		Long: `Derive the three consumer projections from the file's bytes alone — the MCP/channel tool
list (tools[].name), the handler authorization table (handler_action -> access, scope) and the
launcher allowlist (tools[].name) — then prove they carry the same tools with no loss, and run
the boot check against the complete handler table. Exit status 1 on any loss. A registered
persona's stamp is loaded through the hub and checked against its recorded hash.

--consumer launcher --harness H prints exactly what "session start ADDRESS --harness H"
runs: its one MCP server (this program, "mcp --persona ADDRESS"), the allowlist as the
harness names it (Claude Code: mcp__<server>__<tool>), how its built-in tools are off,
the session id its lineage names, the command line, and the files it writes into
<home>/sessions/<seat>/ (docs/sessions.md).`,
		Example: `  virgo-tui stamp project CAPABILITY-STAMP.json
  virgo-tui stamp project CAPABILITY-STAMP.json --consumer launcher -o json
  virgo-tui stamp project work/core/lead --consumer launcher --harness claude-code`,
		Args: cobra.ExactArgs(1),
	}
	out := addOutputFlag(cmd)
	cmd.Flags().StringVar(&consumer, "consumer", "", "print only one projection: mcp, handler or launcher")
	addLaunchFlags(cmd, &launch, "")
	cmd.RegisterFlagCompletionFunc("consumer", cobra.FixedCompletions([]string{"mcp", "handler", "launcher"}, cobra.ShellCompDirectiveNoFileComp))
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		switch consumer {
		case "", "mcp", "handler", "launcher":
		default:
			return fmt.Errorf("--consumer %q: use mcp, handler or launcher", consumer)
		}
		if launch.harness != "" && consumer != "launcher" {
			return fmt.Errorf("--harness %q: only with --consumer launcher", launch.harness)
		}
		s, b, err := a.stampBytes(cmd.Context(), args[0])
		if err != nil {
			return err
		}
		p, err := stamp.Project(b)
		if err != nil {
			return err
		}
		verdict := stamp.CheckProjections(p)
		boot := stamp.BootCheck(s, stamp.Handlers())
		w := cmd.OutOrStdout()
		if launch.harness != "" {
			if verdict != nil || boot != nil {
				writeVerdict(w, "equality", verdict, "")
				writeVerdict(w, "boot", boot, "")
				return &exitError{code: 1, err: errReported}
			}
			pl, err := a.plan(s, p.Launcher, launch, false, "")
			if err != nil {
				return err
			}
			return writeLaunch(w, *out, pl.launch)
		}
		if *out == outputJSON {
			if err := writeJSON(w, projectionReport(p, consumer, verdict, boot)); err != nil {
				return err
			}
		} else {
			writeProjections(w, p, consumer)
			writeVerdict(w, "equality", verdict, fmt.Sprintf("ok: %d tools in all three projections", len(p.MCP)))
			writeVerdict(w, "boot", boot, "ok: every handler_action has a handler and every scope its binding")
		}
		if verdict != nil || boot != nil {
			return &exitError{code: 1, err: errReported}
		}
		return nil
	}
	return cmd
}

func projectionReport(p stamp.Projections, consumer string, verdict, boot error) map[string]any {
	r := map[string]any{"equal": verdict == nil, "boot": boot == nil,
		"problems": append(append([]stamp.Problem{}, stamp.ProblemsOf(verdict)...), stamp.ProblemsOf(boot)...)}
	if consumer == "" || consumer == "mcp" {
		r["mcp"] = p.MCP
	}
	if consumer == "" || consumer == "handler" {
		r["handler"] = p.Handler
	}
	if consumer == "" || consumer == "launcher" {
		r["launcher"] = p.Launcher
	}
	return r
}

func writeProjections(w io.Writer, p stamp.Projections, consumer string) {
	if consumer == "" || consumer == "mcp" {
		fmt.Fprintf(w, "mcp (%d):\n", len(p.MCP))
		for _, n := range p.MCP {
			fmt.Fprintf(w, "  %s\n", n)
		}
	}
	if consumer == "" || consumer == "handler" {
		fmt.Fprintf(w, "handler (%d):\n", len(p.Handler))
		actions := make([]string, 0, len(p.Handler))
		for a := range p.Handler {
			actions = append(actions, a)
		}
		sort.Strings(actions)
		tw := newTable(w)
		for _, a := range actions {
			g := p.Handler[a]
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", a, g.Access, g.Scope, g.Tool)
		}
		_ = tw.Flush()
	}
	if consumer == "" || consumer == "launcher" {
		fmt.Fprintf(w, "launcher (%d):\n", len(p.Launcher))
		for _, n := range p.Launcher {
			fmt.Fprintf(w, "  %s\n", n)
		}
	}
}

func writeVerdict(w io.Writer, what string, err error, ok string) {
	if err == nil {
		fmt.Fprintf(w, "%s: %s\n", what, ok)
		return
	}
	fmt.Fprintf(w, "%s: REFUSED, the persona is not standing\n", what)
	for _, p := range stamp.ProblemsOf(err) {
		fmt.Fprintf(w, "  %s\n", p)
	}
}
