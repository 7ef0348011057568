// Package harness is the table of agent harnesses a persona's resident
// session can run (Claude Code, Codex, any other program): one row per
// harness saying how to start it, resume it and name its session, how to
// hand it exactly one MCP server (this binary, serving the persona's stamp),
// the allowlist in the harness's naming, how its built-in tools are locked
// (or why they cannot be), and how its hooks report the session's state.
//
// A row renders a Launch: the program's argument vector, its environment and
// the configuration files it reads, all of which live in the session's
// private directory of the home, never in the user's project. The session
// supervisor runs a Launch; `stamp project --consumer launcher --harness H`
// prints the same Launch, so what an operator reads is what runs.
package harness

import (
	"crypto/sha1"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Named refusals of the table.
var (
	// ErrUnknownHarness: a harness the table has no row for.
	ErrUnknownHarness = errors.New("unknown agent harness")
	// ErrCannotLock: the harness keeps built-in tools the table cannot
	// switch off, and the persona's stamp has tools that need a human's
	// confirmation: outside MCP the harness could do what the gate holds.
	ErrCannotLock = errors.New("the harness cannot switch off its own tools, and this stamp has confirm tools")
	// ErrNoLineage: the stamp records no native session lineage, so the
	// session has no name to resume by.
	ErrNoLineage = errors.New("the stamp records no session lineage")
	// ErrNoProgram: the command harness runs the operator's program, and
	// none was named.
	ErrNoProgram = errors.New("the command harness needs the program to run (--program PATH)")
)

// The environment a command harness's program reads: what the table hands
// it in place of configuration files.
const (
	// MCPCommandEnv is the MCP server's command line (shell words).
	MCPCommandEnv = "VIRGO_MCP_COMMAND"
	// HookCommandEnv is the hook command line (shell words) the program
	// runs with the event's name appended and the event's JSON on stdin.
	HookCommandEnv = "VIRGO_HOOK_COMMAND"
	// SessionIDEnv is the session's id (a UUID derived from the lineage).
	SessionIDEnv = "VIRGO_SESSION_ID"
	// ResumeEnv is "1" when the session ran a turn before (resume it),
	// "0" on its first start.
	ResumeEnv = "VIRGO_SESSION_RESUME"
	// AllowedEnv is the allowlist, comma-separated (the stamp's tool names).
	AllowedEnv = "VIRGO_ALLOWED_TOOLS"
	// FenceEnv is the instance fence the session claimed at its start, in
	// every harness's environment: its MCP server and its hooks present it,
	// as parts of the one runtime instance the session is.
	FenceEnv = "VIRGO_FENCE"
)

// Session is what a row is asked to launch: one persona's session.
type Session struct {
	// Binary is this program's absolute path: the MCP server and the hooks.
	Binary string
	// Home is the installation home's absolute path.
	Home string
	// Address is the persona's seat.
	Address string
	// Lineage is the stamp's native session lineage.
	Lineage string
	// Tools is the stamp's launcher allowlist (tools[].name).
	Tools []string
	// Confirm is whether any of the stamp's tools has access confirm.
	Confirm bool
	// Program is the harness's program (a path, or a name on PATH).
	Program string
	// Dir is the session's private directory (Dir of the home and seat).
	Dir string
	// Workdir is where the session works: the persona's workspace, or the
	// bound repository of a project duty.
	Workdir string
	// Resume says the session ran a turn before: resume it.
	Resume bool
	// MCPClientOnly is the operator's statement that a command harness's
	// program is an MCP client with no tools of its own.
	MCPClientOnly bool
	// Env is the environment the session starts from, as far as a row
	// reads it (Claude Code: whether an API key is set).
	Env map[string]string
	// Fence is the instance fence the session claimed, empty when the
	// launch is only printed.
	Fence string
}

// File is one configuration file of a launch, in the session directory.
type File struct {
	Path    string `json:"path"`
	Content string `json:"content"`
	// Merge says the harness keeps state of its own in the file: Content
	// (a JSON object) is merged into it, never written over it.
	Merge bool `json:"merge,omitempty"`
}

// Launch is exactly what a session runs.
type Launch struct {
	Harness string `json:"harness"`
	// Server is the MCP server's name as the harness registers it.
	Server string `json:"server"`
	// MCPCommand starts the persona's MCP server on stdio.
	MCPCommand []string `json:"mcp_command"`
	// Allowed is the allowlist as the harness names the tools.
	Allowed []string `json:"allowed_tools"`
	// Locked says how the harness's built-in tools are switched off, or
	// why they are not.
	Locked string `json:"locked"`
	// SessionID names the harness's session; Resume says it is resumed.
	SessionID string `json:"session_id"`
	Resume    bool   `json:"resume"`
	// Workdir is the session's working directory.
	Workdir string `json:"workdir"`
	// Argv is the program and its arguments; Env is added to its
	// environment (KEY=VALUE).
	Argv []string `json:"argv"`
	Env  []string `json:"env,omitempty"`
	// Files are written, 0600, into the session directory before Argv runs.
	Files []File `json:"files,omitempty"`
}

// Harness is one row of the table.
type Harness struct {
	// Name is the harness's name (--harness).
	Name string
	// Program is the program looked up on PATH when none is named; empty
	// when the operator must name it.
	Program string
	// Locks says the row switches the harness's built-in tools off, so the
	// MCP server is its only way to act.
	Locks bool
	// Lock says how, or why it cannot.
	Lock string
	// Names says the harness takes a session id of ours (so the lineage
	// names its session and a restart resumes it); Resume how it resumes.
	Names  bool
	Resume string
	// Hooks says how the harness reports its state into presence.
	Hooks string
	// render fills in the harness's own part of a launch.
	render func(s Session, l *Launch) error
}

// Table is every harness, in the order they are offered.
var Table = []Harness{
	{
		Name: "claude-code", Program: "claude", Locks: true,
		Lock: `--tools "" switches every built-in tool off (Bash, Edit, Write, Read, …: "No such tool available"); ` +
			`--strict-mcp-config with --mcp-config loads this one server and no other; --permission-mode dontAsk ` +
			`denies, without a dialog, any tool not allowed; a private CLAUDE_CONFIG_DIR with --setting-sources ` +
			`user keeps the user's and the working directory's settings (which the persona can write) out`,
		Names: true, Resume: "--session-id UUID on the first start, --resume UUID after",
		Hooks:  "a settings file (--settings) whose hooks run `session hook` for each event",
		render: claudeCode,
	},
	{
		Name: "codex", Program: "codex", Locks: false,
		Lock: "Codex keeps its shell and patch tools whatever its configuration says (a sandbox limits where " +
			"they write, not what they run), so it runs only personas whose stamps have no confirm tools",
		Names: false, Resume: "none: Codex names its own sessions, so every start is a new conversation",
		Hooks:  "none: presence comes from the MCP server alone",
		render: codex,
	},
	{
		Name: "command", Program: "", Locks: false,
		Lock: "the program is the operator's own: nothing here can take a tool away from it, so it runs a persona " +
			"with confirm tools only when the operator states it is an MCP client with no tools of its own " +
			"(--mcp-client-only)",
		Names: true, Resume: "$" + ResumeEnv + "=1 with the same $" + SessionIDEnv,
		Hooks:  "the program runs $" + HookCommandEnv + " EVENT with the event's JSON on stdin",
		render: command,
	},
}

// Names lists the table's harnesses.
func Names() []string {
	out := make([]string, len(Table))
	for i, h := range Table {
		out[i] = h.Name
	}
	return out
}

// Lookup is the row of name.
func Lookup(name string) (Harness, error) {
	for _, h := range Table {
		if h.Name == name {
			return h, nil
		}
	}
	return Harness{}, fmt.Errorf("--harness %q: %w; use one of %s", name, ErrUnknownHarness, strings.Join(Names(), ", "))
}

// Admit is the table's rule: a harness that cannot lock its built-in
// tools does not run a persona whose stamp has confirm tools (the gate
// would be advice), unless it is a command harness whose program the
// operator states is an MCP client only.
func (h Harness) Admit(s Session) error {
	if h.Locks || !s.Confirm || h.Name == "command" && s.MCPClientOnly {
		return nil
	}
	return fmt.Errorf("%s for %s: %w: %s", h.Name, s.Address, ErrCannotLock, h.Lock)
}

// Launch renders what the session of s runs under this harness, refused by
// the table's rule (Admit).
func (h Harness) Launch(s Session) (Launch, error) {
	if err := h.Admit(s); err != nil {
		return Launch{}, err
	}
	if s.Lineage == "" {
		return Launch{}, fmt.Errorf("%s: %w; re-register it with a lineage to run a resident session", s.Address, ErrNoLineage)
	}
	l := Launch{
		Harness: h.Name, Server: Server, Locked: h.Lock, Workdir: s.Workdir,
		MCPCommand: []string{s.Binary, "mcp", "--persona", s.Address, "--home", s.Home},
		SessionID:  SessionID(s.Lineage), Resume: s.Resume && h.Names,
	}
	if err := h.render(s, &l); err != nil {
		return Launch{}, err
	}
	if s.Fence != "" {
		l.Env = append(l.Env, FenceEnv+"="+s.Fence)
	}
	return l, nil
}

// Server is the name a harness registers the session's one MCP server
// under: a session has one persona, so one name does, and the harness's
// tool names stay short (Claude Code's mcp__virgo__<tool> is within the
// Messages API's 64 characters for every tool of the inventory).
const Server = "virgo"

// SessionName is the session's name — its tmux session and its directory
// under <home>/sessions — the address with '_' for '/' (a tmux target
// cannot hold '.' or ':', and an address segment cannot hold '_').
func SessionName(address string) string { return strings.ReplaceAll(address, "/", "_") }

// Dir is the private directory of the session of address in home.
func Dir(home, address string) string { return filepath.Join(SessionsDir(home), SessionName(address)) }

// SessionsDir is the directory of a home's sessions.
func SessionsDir(home string) string { return filepath.Join(home, "sessions") }

// lineageSpace is the UUID namespace of session ids (RFC 9562 §5.5): a
// fixed random UUID, so every host derives the same id from a lineage.
var lineageSpace = [16]byte{0x6f, 0x1d, 0x2c, 0x9a, 0x4b, 0x7e, 0x4f, 0x10, 0x9c, 0x3a, 0x5d, 0x21, 0x8e, 0x47, 0xb2, 0x63}

// SessionID is the harness session id of a native session lineage: a
// name-based UUID (version 5), the same on every host, so a session
// resumed after a crash, a reboot or on another host is the same one.
func SessionID(lineage string) string {
	h := sha1.New()
	h.Write(lineageSpace[:])
	h.Write([]byte(lineage))
	u := h.Sum(nil)[:16]
	u[6] = u[6]&0x0f | 0x50
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// HookCommand is the hook command line of the session of s, before the
// event's name.
func HookCommand(s Session) []string {
	return []string{s.Binary, "session", "hook", "--home", s.Home, "--persona", s.Address}
}

// ShellLine joins words as a POSIX shell reads them back.
func ShellLine(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = ShellWord(w)
	}
	return strings.Join(q, " ")
}

// ShellWord quotes s for a POSIX shell when it needs it.
func ShellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// qualified names the stamp's tools as a harness does: prefix, the
// server's name, sep, the tool.
func qualified(tools []string, prefix, server, sep string) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = prefix + server + sep + t
	}
	return out
}

// sorted is a sorted copy.
func sorted(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}
