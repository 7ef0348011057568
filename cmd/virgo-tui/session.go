package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/harness"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/session"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/workspace"
)

func init() { subcommands = append(subcommands, newSessionCmd) }

// Named refusals of the session commands.
var (
	// ErrProgramNotFound: the harness's program is not on PATH.
	ErrProgramNotFound = errors.New("the harness's program is not on PATH")
	// ErrNoTerminal: attach needs a terminal to attach.
	ErrNoTerminal = errors.New("attach needs a terminal (stdin and stdout a TTY)")
)

// stopWait is how long `session stop` waits for the harness to exit once
// hung up, before it is killed.
const stopWait = 5 * time.Second

// hookBudget bounds how long a hook waits for the hub: a hook holds the
// harness's turn up, and presence missed for a moment is not worth more.
const hookBudget = 2 * time.Second

// launchSpec is what names a session's launch on the command line.
type launchSpec struct {
	harness, program string
	mcpClientOnly    bool
}

// addLaunchFlags adds the flags of launchSpec to cmd.
func addLaunchFlags(cmd *cobra.Command, f *launchSpec, defaultHarness string) {
	cmd.Flags().StringVar(&f.harness, "harness", defaultHarness, "the agent harness: "+strings.Join(harness.Names(), ", "))
	cmd.Flags().StringVar(&f.program, "program", "", "the harness's program (default: its name on PATH; the command harness needs it)")
	cmd.Flags().BoolVar(&f.mcpClientOnly, "mcp-client-only", false,
		"with --harness command: state that the program is an MCP client with no tools of its own (needed when the stamp has confirm tools)")
	cmd.RegisterFlagCompletionFunc("harness", cobra.FixedCompletions(harness.Names(), cobra.ShellCompDirectiveNoFileComp))
}

// planned is a session's launch with what it was rendered from.
type planned struct {
	home    string
	dir     string
	row     harness.Harness
	session harness.Session
	launch  harness.Launch
}

// plan renders the launch of the session of the persona whose stamp is s
// (its launcher allowlist allow) under f: one code path for `session
// start`, which runs it, and `stamp project --consumer launcher`, which
// prints it. A program not on PATH is ErrProgramNotFound when run,
// else kept as named.
func (a *app) plan(s stamp.Stamp, allow []string, f launchSpec, run bool, fence string) (planned, error) {
	row, err := harness.Lookup(f.harness)
	if err != nil {
		return planned{}, err
	}
	home, err := a.home()
	if err != nil {
		return planned{}, err
	}
	dir, err := filepath.Abs(home.Dir)
	if err != nil {
		return planned{}, err
	}
	bin, err := os.Executable()
	if err != nil {
		return planned{}, fmt.Errorf("this program's path (the session's MCP server): %w", err)
	}
	program := f.program
	if program == "" {
		program = row.Program
	}
	if program == "" {
		return planned{}, harness.ErrNoProgram
	}
	if found, err := exec.LookPath(program); err == nil {
		program, _ = filepath.Abs(found)
	} else if run {
		return planned{}, fmt.Errorf("%s: %w: %q; install it or name it with --program PATH", row.Name, ErrProgramNotFound, program)
	}
	address := s.Path.Address
	workdir := s.Workspace.Repository
	if workdir == "" {
		workdir = workspace.HomeDir(dir, address)
	}
	sdir := harness.Dir(dir, address)
	env := map[string]string{}
	if key := os.Getenv("ANTHROPIC_API_KEY"); key != "" {
		env["ANTHROPIC_API_KEY"] = key
		if !run {
			// Printed, not run: the key stays out of what is shown.
			env["ANTHROPIC_API_KEY"] = "$ANTHROPIC_API_KEY"
		}
	}
	sess := harness.Session{
		Binary: bin, Home: dir, Address: address, Lineage: s.Persona.SessionLineage,
		Tools: allow, Program: program, Dir: sdir, Workdir: workdir,
		Confirm: slices.ContainsFunc(s.Tools, func(t stamp.Tool) bool { return t.Access == stamp.AccessConfirm }),
		Resume:  session.Turned(sdir), MCPClientOnly: f.mcpClientOnly, Env: env, Fence: fence,
	}
	l, err := row.Launch(sess)
	if err != nil {
		return planned{}, err
	}
	return planned{home: dir, dir: sdir, row: row, session: sess, launch: l}, nil
}

// planFor loads the stamp of the persona ref through the hub (checked
// against its recorded hash, its projections equal) and plans its session.
func (a *app) planFor(ctx context.Context, ref string, f launchSpec, run bool, fence string) (planned, error) {
	s, b, err := a.stampBytes(ctx, ref)
	if err != nil {
		return planned{}, err
	}
	p, err := stamp.Project(b)
	if err != nil {
		return planned{}, err
	}
	if err := stamp.CheckProjections(p); err != nil {
		return planned{}, err
	}
	return a.plan(s, p.Launcher, f, run, fence)
}

// writeLaunch prints a launch as `stamp project --consumer launcher
// --harness H` shows it: what the session runs, its files, its environment.
func writeLaunch(w io.Writer, out outputFormat, l harness.Launch) error {
	if out == outputJSON {
		return writeJSON(w, l)
	}
	fmt.Fprintf(w, "# harness %s, MCP server %q: exactly one, this program\n%s\n\n", l.Harness, l.Server, harness.ShellLine(l.MCPCommand))
	fmt.Fprintf(w, "# built-in tools: %s\n\n", l.Locked)
	fmt.Fprintf(w, "# allowlist (%d tools)\n%s\n\n", len(l.Allowed), strings.Join(l.Allowed, "\n"))
	verb := "named"
	if l.Resume {
		verb = "resumed"
	}
	fmt.Fprintf(w, "# session %s (%s), in %s\n", l.SessionID, verb, l.Workdir)
	for _, kv := range l.Env {
		fmt.Fprintln(w, harness.ShellWord(kv))
	}
	fmt.Fprintf(w, "%s\n", harness.ShellLine(l.Argv))
	for _, f := range l.Files {
		fmt.Fprintf(w, "\n# %s\n%s", f.Path, f.Content)
	}
	return nil
}

func newSessionCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "session",
		Short: "Run personas' agents as resident sessions in tmux: start, stop, attach, list",
		Long: `A resident session is a persona's agent harness (Claude Code, Codex, or any program)
running interactively in tmux, on the home's own tmux server, one session per seat. It
is started with exactly one MCP server — this program, serving the persona's stamp with
its own token — the allowlist exactly the stamp's tools, and the harness's built-in
tools off; its configuration lives in <home>/sessions/<seat>/ (0700), never in a
project. Its session is named by the persona's native session lineage, so a later
start resumes the same conversation. The harness's hooks report working, idle and
ended into presence. See docs/sessions.md.`,
		Example: `  virgo-tui session start work/core/lead --harness claude-code
  virgo-tui session attach work/core/lead
  virgo-tui session list -o json
  virgo-tui session stop work/core/lead`,
	}
	cmd.AddCommand(newSessionStartCmd(a), newSessionStopCmd(a), newSessionAttachCmd(a), newSessionListCmd(a), newSessionHookCmd(a))
	return cmd
}

func newSessionStartCmd(a *app) *cobra.Command {
	var f launchSpec
	cmd := &cobra.Command{
		Use:   "start ADDRESS [--harness H] [--program PATH]",
		Short: "Start (or resume) the persona's resident session in tmux",
		Args:  cobra.ExactArgs(1),
	}
	addLaunchFlags(cmd, &f, "claude-code")
	cmd.ValidArgsFunction = a.completeActiveAddresses
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		p, err := a.startSession(cmd.Context(), args[0], f)
		if err != nil {
			return err
		}
		how := "new session"
		if p.launch.Resume {
			how = "resumed"
		}
		fmt.Fprintf(cmd.OutOrStdout(), "started %s: %s, session %s (%s), in %s\nattach: %s session attach %s\n",
			p.session.Address, p.row.Name, p.launch.SessionID, how, p.launch.Workdir, a.name, p.session.Address)
		return nil
	}
	return cmd
}

// homeTmux is the home and the tmux server its resident sessions run in.
func (a *app) homeTmux() (registry.Home, session.Tmux, error) {
	home, err := a.home()
	if err != nil {
		return registry.Home{}, session.Tmux{}, err
	}
	t, err := session.ForHome(home.Dir)
	return home, t, err
}

// startSession starts the session of ref under f: planned, its files
// written into its private directory, run in the home's tmux server.
func (a *app) startSession(ctx context.Context, ref string, f launchSpec) (planned, error) {
	_, t, err := a.homeTmux()
	if err != nil {
		return planned{}, err
	}
	address, err := registry.ParseAddress(strings.TrimSpace(ref))
	if err != nil {
		return planned{}, err
	}
	name := harness.SessionName(address.String())
	// Refused before anything is written or claimed: a running session's
	// files and fence stay those it runs with.
	if pane, err := t.Pane(ctx, name); err == nil && !pane.Dead {
		return planned{}, fmt.Errorf("%s (pid %d): %w; attach with `%s session attach %s` or stop it first", address, pane.PID, session.ErrRunning, a.name, address)
	}
	p, err := a.planFor(ctx, address.String(), f, true, "")
	if err != nil {
		return planned{}, err // refused by the table before an instance is claimed
	}
	// The session is the persona's runtime instance: it claims the
	// generation's fence (an older instance is fenced out), and its MCP
	// server and hooks present it.
	var fence coord.Fence
	err = a.actingAs(address.String()).withClient(ctx, func(ctx context.Context, c *hubclient.Client) (err error) {
		fence, err = c.ClaimFence(ctx)
		return err
	})
	if err != nil {
		return planned{}, fmt.Errorf("session of %s: claim the instance fence: %w", address, err)
	}
	p.session.Fence = strconv.FormatUint(uint64(fence), 10)
	if p.launch, err = p.row.Launch(p.session); err != nil {
		return planned{}, err
	}
	if _, err := session.Prepare(p.home, p.session.Address); err != nil {
		return planned{}, err
	}
	if p.launch.Workdir == workspace.HomeDir(p.home, p.session.Address) {
		if err := os.MkdirAll(p.launch.Workdir, 0o700); err != nil {
			return planned{}, fmt.Errorf("workspace of %s: %w", p.session.Address, err)
		}
	}
	rec := session.Record{Address: p.session.Address, Harness: p.row.Name, Program: p.session.Program,
		SessionID: p.launch.SessionID, Workdir: p.launch.Workdir, Started: time.Now().UTC(), MCPClientOnly: p.session.MCPClientOnly,
		Fence: p.session.Fence}
	if err := session.Write(p.dir, p.launch, rec); err != nil {
		return planned{}, err
	}
	if err := t.Start(ctx, name, p.launch.Workdir, p.launch.Env, p.launch.Argv); err != nil {
		return planned{}, fmt.Errorf("session of %s: %w", p.session.Address, err)
	}
	return p, nil
}

func newSessionStopCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:               "stop ADDRESS",
		Short:             "Stop the persona's session: the harness and its MCP server end, presence goes offline",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: a.completeActiveAddresses,
		RunE: func(cmd *cobra.Command, args []string) error {
			address, err := registry.ParseAddress(strings.TrimSpace(args[0]))
			if err != nil {
				return err
			}
			pane, err := a.stopSession(cmd.Context(), address.String())
			if err != nil {
				return err
			}
			how := "hung up"
			if pane.Dead {
				how = "it had " + exitedHow(session.Info{Status: pane.Status, Signal: pane.Signal})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "stopped %s (%s)\n", address, how)
			return nil
		},
	}
}

// stopSession ends the session of address and reports it ended into
// presence, as the persona: the persona is offline at once. A hub that does
// not answer is not started for it (presence lives in a running hub).
func (a *app) stopSession(ctx context.Context, address string) (session.Pane, error) {
	home, t, err := a.homeTmux()
	if err != nil {
		return session.Pane{}, err
	}
	pane, err := t.Stop(ctx, harness.SessionName(address), stopWait)
	if err != nil {
		return pane, fmt.Errorf("session of %s: %w", address, err)
	}
	rec, err := session.ReadRecord(harness.Dir(home.Dir, address))
	if err != nil {
		return pane, err
	}
	return pane, a.reportSession(ctx, home, rec, hubapi.SessionEnded)
}

// reportSession reports the state of the session rec records, as its
// persona with its own token and the session's fence, to a running hub
// only, within hookBudget.
func (a *app) reportSession(ctx context.Context, home registry.Home, rec session.Record, state hubapi.SessionState) error {
	fence, err := hubapi.ParseFence(rec.Fence)
	if err != nil {
		return fmt.Errorf("session of %s: its record's fence: %w", rec.Address, err)
	}
	c, err := a.personaClient(ctx, home, rec.Address, hubclient.WithRetryBudget(hookBudget))
	if err != nil {
		return err
	}
	defer c.Close()
	c.UseFence(fence)
	if state == "" {
		_, err = c.Beat(ctx)
	} else {
		_, err = c.SetSession(ctx, state)
	}
	return err
}

func newSessionAttachCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:               "attach ADDRESS",
		Short:             "Attach this terminal to the persona's session (detach with C-b d)",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: a.completeActiveAddresses,
		RunE: func(cmd *cobra.Command, args []string) error {
			address, err := registry.ParseAddress(strings.TrimSpace(args[0]))
			if err != nil {
				return err
			}
			if !term.IsTerminal(os.Stdin.Fd()) || !term.IsTerminal(os.Stdout.Fd()) {
				return ErrNoTerminal
			}
			c, err := a.attachCmd(cmd.Context(), address.String())
			if err != nil {
				return err
			}
			// The terminal itself, not the escaping writer: this is tmux
			// drawing the session, and tmux sanitizes what it draws.
			c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
			return c.Run()
		},
	}
}

// attachCmd is the tmux command attaching to the session of address,
// ErrNotRunning when it has none.
func (a *app) attachCmd(ctx context.Context, address string) (*exec.Cmd, error) {
	_, t, err := a.homeTmux()
	if err != nil {
		return nil, err
	}
	name := harness.SessionName(address)
	if _, err := t.Pane(ctx, name); err != nil {
		return nil, fmt.Errorf("%s: %w; start it with `%s session start %s`", address, err, a.name, address)
	}
	return t.Attach(name), nil
}

func newSessionListCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the home's sessions: running, exited (with its status and last lines) or stopped",
		Args:  cobra.NoArgs,
	}
	out := addOutputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		home, t, err := a.homeTmux()
		if err != nil {
			return err
		}
		ss, err := session.List(cmd.Context(), home.Dir, t)
		if err != nil {
			return err
		}
		w := cmd.OutOrStdout()
		if *out == outputJSON {
			if ss == nil {
				ss = []session.Info{}
			}
			return writeJSON(w, ss)
		}
		tw := newTable(w)
		fmt.Fprintln(tw, "ADDRESS\tHARNESS\tSTATE\tSESSION\tATTACHED\tWORKDIR")
		for _, s := range ss {
			state := s.State
			if s.State == session.StateExited {
				state = exitedHow(s)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", s.Address, s.Harness, state, s.SessionID, s.Attached, s.Workdir)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, s := range ss {
			if len(s.LastLines) > 0 {
				fmt.Fprintf(w, "\n%s %s; its last lines:\n  %s\n", s.Address, exitedHow(s), strings.Join(s.LastLines, "\n  "))
			}
		}
		return nil
	}
	return cmd
}

// exitedHow says how an exited session's harness ended.
func exitedHow(s session.Info) string {
	if s.Signal != 0 {
		return fmt.Sprintf("killed by signal %d", s.Signal)
	}
	return fmt.Sprintf("exited %d", s.Status)
}

func newSessionHookCmd(a *app) *cobra.Command {
	var persona string
	cmd := &cobra.Command{
		Use:   "hook --persona ADDRESS EVENT",
		Short: "Report a harness hook's event into the persona's presence (run by the harness)",
		Long: `The harness of a resident session runs this for each hook event, with the event's JSON
on stdin (at most 1 MiB; it must name the seat's session). The event says the session's
turn — SessionStart and Stop idle, UserPromptSubmit, PreToolUse and PostToolUse working,
SessionEnd ended, Notification a heartbeat — reported to a running hub as the persona,
with its own token. Nothing is printed on stdout: a harness may read it as context.`,
		Args: cobra.ExactArgs(1),
	}
	cmd.Flags().StringVar(&persona, "persona", "", "the persona's address (required)")
	_ = cmd.MarkFlagRequired("persona")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		address, err := registry.ParseAddress(strings.TrimSpace(persona))
		if err != nil {
			return err
		}
		home, err := a.home()
		if err != nil {
			return err
		}
		dir := harness.Dir(home.Dir, address.String())
		rec, err := session.ReadRecord(dir)
		if err != nil {
			return fmt.Errorf("hook %s of %s: the session's record: %w", args[0], address, err)
		}
		h, state, err := session.ReadHook(cmd.InOrStdin(), args[0], rec.SessionID)
		if err != nil {
			return err
		}
		if h.Event == "UserPromptSubmit" {
			// A turn ran under the session's id: its transcript exists,
			// and the next start resumes it.
			if err := session.MarkTurned(dir, rec.SessionID); err != nil {
				return err
			}
		}
		if rec.Address != address.String() {
			return fmt.Errorf("hook %s: %w: the record in %s is %s's", args[0], session.ErrHookSession, dir, rec.Address)
		}
		return a.reportSession(cmd.Context(), home, rec, state)
	}
	return cmd
}

// wakeSessions runs the waker of home's sessions (session.Waker) over c, an
// operator's client, until ctx ends; woke, when set, is told of each wake.
// Without tmux there is no session to wake.
func wakeSessions(ctx context.Context, home string, c *hubclient.Client, woke func(string)) error {
	t, err := session.ForHome(home)
	if errors.Is(err, session.ErrNoTmux) {
		return nil
	}
	if err != nil {
		return err
	}
	w := &session.Waker{Home: home, Tmux: t, Src: c, Woke: woke}
	return w.Run(ctx)
}

// consoleSessions are the console's session keys (ui.Sessions): the same
// start, stop and attach as the commands. A start from the console runs
// the harness the seat's session last ran (its record), else claude-code.
type consoleSessions struct{ a *app }

// Start starts or resumes the session of address.
func (s consoleSessions) Start(ctx context.Context, address string) (string, error) {
	f := launchSpec{harness: "claude-code"}
	if home, err := s.a.home(); err == nil {
		if rec, err := session.ReadRecord(harness.Dir(home.Dir, address)); err == nil {
			f = launchSpec{harness: rec.Harness, program: rec.Program, mcpClientOnly: rec.MCPClientOnly}
		}
	}
	p, err := s.a.startSession(ctx, address, f)
	if err != nil {
		return "", err
	}
	how := "a new session"
	if p.launch.Resume {
		how = "resumed"
	}
	return fmt.Sprintf("started %s: %s, %s (t attaches)", address, p.row.Name, how), nil
}

// Stop stops the session of address.
func (s consoleSessions) Stop(ctx context.Context, address string) (string, error) {
	if _, err := s.a.stopSession(ctx, address); err != nil {
		return "", err
	}
	return "stopped the session of " + address, nil
}

// Attach is the command attaching the terminal to the session of address.
func (s consoleSessions) Attach(ctx context.Context, address string) (tea.ExecCommand, error) {
	c, err := s.a.attachCmd(ctx, address)
	if err != nil {
		return nil, err
	}
	return execCommand{c}, nil
}

// execCommand is an exec.Cmd as Bubble Tea runs one with the console
// suspended: on the console's terminal.
type execCommand struct{ *exec.Cmd }

func (c execCommand) SetStdin(r io.Reader)  { c.Stdin = r }
func (c execCommand) SetStdout(w io.Writer) { c.Stdout = w }
func (c execCommand) SetStderr(w io.Writer) { c.Stderr = w }
