package harness

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/tools"
)

// lead is a session of a lead, whose stamp has confirm tools.
func lead(t *testing.T) Session {
	home := t.TempDir()
	return Session{Binary: "/opt/virgo/bin/virgo-tui", Home: home, Address: "work/core/lead", Lineage: "ses-0123456789abcdef",
		Tools: []string{"workspace_list", "publish_deployment_v1"}, Confirm: true, Program: "/usr/bin/claude",
		Dir: Dir(home, "work/core/lead"), Workdir: filepath.Join(home, "workspaces", "work/core/lead")}
}

// argAfter is the argument after flag in argv, and whether flag is there.
func argAfter(argv []string, flag string) (string, bool) {
	i := slices.Index(argv, flag)
	if i < 0 || i+1 >= len(argv) {
		return "", false
	}
	return argv[i+1], true
}

// The Claude Code row: exactly one MCP server, this binary by its
// absolute path serving the persona; built-in tools off; anything not
// allowed denied without a dialog; the allowlist exactly the stamp's tools
// as Claude Code names them; hooks into `session hook`; every file in the
// session's directory; the session named by the lineage, then resumed.
func TestClaudeCodeRowLocksTheHarnessToTheStamp(t *testing.T) {
	s := lead(t)
	row, err := Lookup("claude-code")
	if err != nil {
		t.Fatal(err)
	}
	l, err := row.Launch(s)
	if err != nil {
		t.Fatal(err)
	}
	for flag, want := range map[string]string{"--tools": "", "--permission-mode": "dontAsk", "--setting-sources": "user",
		"--session-id": SessionID(s.Lineage), "--mcp-config": filepath.Join(s.Dir, "mcp.json"), "--settings": filepath.Join(s.Dir, "settings.json"),
		"--allowedTools": "mcp__virgo__workspace_list,mcp__virgo__publish_deployment_v1"} {
		if got, ok := argAfter(l.Argv, flag); !ok || got != want {
			t.Errorf("%s %q (present %v), want %q\n%q", flag, got, ok, want, l.Argv)
		}
	}
	if l.Argv[0] != s.Program || !slices.Contains(l.Argv, "--strict-mcp-config") || slices.Contains(l.Argv, "--resume") {
		t.Errorf("argv %q: want the program, --strict-mcp-config, no --resume on a first start", l.Argv)
	}
	files := map[string]string{}
	for _, f := range l.Files {
		if filepath.Dir(f.Path) != s.Dir && filepath.Dir(filepath.Dir(f.Path)) != s.Dir {
			t.Errorf("%s is outside the session directory %s", f.Path, s.Dir)
		}
		files[filepath.Base(f.Path)] = f.Content
	}
	var mcp struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
		}
	}
	if err := json.Unmarshal([]byte(files["mcp.json"]), &mcp); err != nil {
		t.Fatal(err)
	}
	want := []string{"mcp", "--persona", "work/core/lead", "--home", s.Home}
	if srv, ok := mcp.MCPServers[Server]; len(mcp.MCPServers) != 1 || !ok || srv.Command != s.Binary || !slices.Equal(srv.Args, want) {
		t.Errorf("mcp.json %s: want exactly the server %q: %s %q", files["mcp.json"], Server, s.Binary, want)
	}
	var settings struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string }
		}
		Permissions struct{ Allow []string }
	}
	if err := json.Unmarshal([]byte(files["settings.json"]), &settings); err != nil {
		t.Fatal(err)
	}
	for _, ev := range ClaudeHookEvents {
		h := settings.Hooks[ev]
		if len(h) != 1 || len(h[0].Hooks) != 1 || h[0].Hooks[0].Command != ShellLine(append(HookCommand(s), ev)) {
			t.Errorf("hook %s: %+v", ev, h)
		}
	}
	if !slices.Equal(settings.Permissions.Allow, l.Allowed) {
		t.Errorf("settings allow %v, want %v", settings.Permissions.Allow, l.Allowed)
	}
	if !slices.Contains(l.Env, "CLAUDE_CONFIG_DIR="+filepath.Join(s.Dir, "claude")) {
		t.Errorf("env %q: want the session's own CLAUDE_CONFIG_DIR", l.Env)
	}

	s.Resume = true
	if l, _ = row.Launch(s); !slices.Contains(l.Argv, "--resume") || slices.Contains(l.Argv, "--session-id") {
		t.Errorf("a resumed session's argv %q: want --resume and no --session-id", l.Argv)
	} else if got, _ := argAfter(l.Argv, "--resume"); got != SessionID(s.Lineage) {
		t.Errorf("--resume %q, want the lineage's session id", got)
	}
}

// A harness that cannot lock its built-in tools is refused for a stamp
// with confirm tools, naming why; a command harness is admitted only on
// the operator's statement that the program is an MCP client only.
func TestTheTableRefusesAHarnessThatCannotLock(t *testing.T) {
	s := lead(t)
	for _, name := range []string{"codex", "command"} {
		row, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := row.Launch(s); !errors.Is(err, ErrCannotLock) || !strings.Contains(err.Error(), row.Lock) {
			t.Errorf("%s for a stamp with confirm tools: %v; want ErrCannotLock with the reason", name, err)
		}
		free := s
		free.Confirm = false
		if _, err := row.Launch(free); err != nil {
			t.Errorf("%s for a stamp without confirm tools: %v", name, err)
		}
	}
	cmd, _ := Lookup("command")
	s.MCPClientOnly = true
	l, err := cmd.Launch(s)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(l.Env, MCPCommandEnv+"="+ShellLine(l.MCPCommand)) || !slices.Contains(l.Env, SessionIDEnv+"="+SessionID(s.Lineage)) {
		t.Errorf("the command harness's environment %q", l.Env)
	}
	codex, _ := Lookup("codex")
	s.MCPClientOnly = true // a statement for the command harness only
	if _, err := codex.Launch(s); !errors.Is(err, ErrCannotLock) {
		t.Errorf("codex with --mcp-client-only: %v; want ErrCannotLock", err)
	}
	s.Program = ""
	if _, err := cmd.Launch(s); !errors.Is(err, ErrNoProgram) {
		t.Errorf("the command harness without a program: %v", err)
	}
	if _, err := Lookup("aider"); !errors.Is(err, ErrUnknownHarness) || !strings.Contains(err.Error(), "claude-code, codex, command") {
		t.Errorf("an unknown harness: %v", err)
	}
	s.Program, s.Lineage = "/bin/prog", ""
	if _, err := cmd.Launch(s); !errors.Is(err, ErrNoLineage) {
		t.Errorf("a stamp without a lineage: %v", err)
	}
}

// The session id is a version 5 UUID of the lineage: the same on every
// host, another for another lineage.
func TestSessionIDIsTheLineagesUUID(t *testing.T) {
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	a, b := SessionID("ses-0123456789abcdef"), SessionID("ses-0123456789abcdee")
	if !uuid.MatchString(a) || !uuid.MatchString(b) || a == b || SessionID("ses-0123456789abcdef") != a {
		t.Fatalf("session ids %s, %s", a, b)
	}
}

// Every tool of the inventory, as Claude Code names it, fits the Messages
// API's 64 characters of a tool name.
func TestClaudeToolNamesFit(t *testing.T) {
	for _, tool := range tools.All() {
		if n := "mcp__" + Server + "__" + tool.Name; len(n) > 64 {
			t.Errorf("%s is %d characters", n, len(n))
		}
	}
}
