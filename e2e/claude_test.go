package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The persona whose resident session the test runs, and the MCP server's
// name in the session's configuration (its tools are mcp__virgo__<tool>).
const (
	claudePersona = "work/core/lead"
	claudeServer  = "virgo"
	// claudeKey is the API key the session presents to the scripted model
	// endpoint: any value; Claude Code asks once whether to use a key from
	// the environment, and the first-run state answers yes for this one.
	claudeKey = "sk-ant-e2e-0123456789abcdefghij"
	// claudeWait bounds one step of the real harness: a model round trip
	// is milliseconds, an MCP call through the hub well under a second,
	// and Claude Code's start about three seconds on an idle machine.
	claudeWait = 60 * time.Second
)

// placeholderTool is the one entry Claude Code 2.1.328 adds to the tools of
// every request when it may load tools lazily: "Reserved placeholder that
// keeps deferred tool loading active; never call this tool." It has no
// implementation (defer_loading, an empty schema), so it grants nothing.
const placeholderTool = "DeferredToolPlaceholder"

// TestClaudeCodeResidentSession is the proof with the real Claude Code (the
// version e2e/claude's lockfile pins) in tmux, against a scripted model
// endpoint and the console's real hub: the session's configuration gives
// it exactly the persona's MCP server (`claude mcp list` shows it
// connected); the model calls an allowed tool and the hub records the
// call as the persona's; a Bash and an Edit attempt are refused by the
// harness itself (the request offered no such tool and the tool_result is
// Claude Code's refusal); a confirm tool waits until the operator
// approves it in the console; the hooks report the turn; and after the
// session is stopped, starting it again resumes the same conversation.
func TestClaudeCodeResidentSession(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the Claude Code end-to-end test installs the pinned Claude Code with npm ci and drives it and the console in tmux")
	}
	requireTools(t, "the Claude Code end-to-end test runs the pinned @anthropic-ai/claude-code (npm) in tmux", "tmux", "node", "npm")
	claude := filepath.Join(npmCI(t, "claude"), "node_modules", ".bin", "claude")
	bin := buildBinary(t)
	dir, err := os.MkdirTemp("", "vtcc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	home := filepath.Join(dir, "virgo-cc")
	env := []string{"TERM=xterm-256color", "NO_COLOR=1", "VIRGO_PRINCIPAL=" + operator, "USER=ada"}
	tm := startTerm(t, dir, env, bin, "--home", home)
	tm.logs = append(tm.logs, filepath.Join(home, "console.log"))
	c := &console{term: tm, bin: bin, home: home}
	c.waitFor("hub ● connected", startTimeout)

	var added struct {
		Persona struct {
			ID             string
			SessionLineage string `json:"session_lineage"`
		}
		Confirmation struct{ ID string }
	}
	c.cliJSON(&added, "persona", "add", "--scope", "work", "--project", "core", "--role", "lead", "--name", "Spica")
	c.cli("confirm", "approve", added.Confirmation.ID)
	var proj struct{ Launcher []string }
	c.cliJSON(&proj, "stamp", "project", claudePersona, "--consumer", "launcher")
	var allowed []string
	for _, name := range proj.Launcher {
		allowed = append(allowed, "mcp__"+claudeServer+"__"+name)
	}
	workdir := filepath.Join(home, "workspaces", claudePersona)
	mustWrite(t, filepath.Join(workdir, "notes.md"), "keep this line\n")

	api := startModelAPI(t)
	s := newClaudeSession(t, dir, claude, bin, home, workdir, api.url, added.Persona.SessionLineage, allowed)

	// The session's configuration holds the persona's server, and it
	// connects.
	if out := s.mcpList(); !strings.Contains(out, claudeServer+": "+bin+" mcp") || !strings.Contains(out, "✔ Connected") {
		t.Fatalf("claude mcp list in the session's configuration:\n%s\nwant %s connected", out, claudeServer)
	}

	// A turn: an allowed tool, a Bash and an Edit attempt, a confirm
	// tool, then the answer.
	marker := filepath.Join(dir, "bash-ran")
	api.script(
		modelTurn{ToolUses: []toolUse{{Name: "mcp__" + claudeServer + "__raise_decision", Input: map[string]any{
			"question": "Ship the parser?", "options": []string{"yes", "no"}}}}},
		modelTurn{ToolUses: []toolUse{{Name: "Bash", Input: map[string]any{
			"command": "touch " + marker, "description": "outside the stamp"}}}},
		modelTurn{ToolUses: []toolUse{{Name: "Edit", Input: map[string]any{
			"file_path": filepath.Join(workdir, "notes.md"), "old_string": "keep", "new_string": "lose"}}}},
		modelTurn{ToolUses: []toolUse{{Name: "mcp__" + claudeServer + "__publish_deployment_v1", Input: map[string]any{
			"destination": "https://example.org/release", "description": "release 1"}}}},
		modelTurn{Text: "Released after the owner's approval."},
	)
	s.start(false)
	s.prompt("Begin the release work.")

	// The confirm tool waits in the hub: the model hears nothing more
	// until the operator approves in the console (and what it then hears
	// is the approved result, below).
	api.waitScripted(4, claudeWait, "before the confirmation")
	pending := c.waitPendingFor("publish_deployment_v1")
	if n := len(api.scripted()); n != 4 {
		t.Fatalf("with the publication pending, %d conversation requests reached the model endpoint, want 4 (the call must wait)\n%s", n, api.describe())
	}
	c.press("2", "[2 Queue")
	filterQueue(c, pending, "publish_deployment_v1")
	c.press("a", "approved: "+claudePersona)
	reqs := api.waitScripted(5, claudeWait, "after the approval")
	s.waitHook("Stop", claudeWait)

	// What the harness offered: the stamp's tools and nothing of its own.
	for i, r := range reqs {
		offered := slices.DeleteFunc(r.toolNames(), func(n string) bool { return n == placeholderTool })
		if !sameNames(offered, allowed) {
			t.Errorf("request %d offered %v\n  want exactly the stamp's %d tools %v", i, r.toolNames(), len(allowed), allowed)
		}
	}
	// What came back for each call.
	results := toolResults(reqs[4])
	if len(results) != 4 {
		t.Fatalf("the last request carries %d tool results, want 4\n%s", len(results), api.describe())
	}
	var raised struct {
		ID string `json:"id"`
	}
	if results[0].IsError || json.Unmarshal([]byte(results[0].text()), &raised) != nil || raised.ID == "" {
		t.Errorf("raise_decision's result (error %v): %s", results[0].IsError, results[0].text())
	}
	for i, tool := range map[int]string{1: "Bash", 2: "Edit"} {
		want := "No such tool available: " + tool
		if !results[i].IsError || !strings.Contains(results[i].text(), want) {
			t.Errorf("the %s attempt came back as (error %v) %q; want Claude Code's own refusal %q", tool, results[i].IsError, results[i].text(), want)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the refused Bash command ran: %s exists", marker)
	}
	if b, _ := os.ReadFile(filepath.Join(workdir, "notes.md")); string(b) != "keep this line\n" {
		t.Errorf("the refused Edit changed notes.md: %q", b)
	}
	if r := results[3]; r.IsError || !strings.Contains(r.text(), `"status":"approved"`) {
		t.Errorf("the publication's result after the approval (error %v): %s", r.IsError, r.text())
	}

	// The hub recorded the allowed call as the persona's.
	var decisions struct{ Items []decisionItem }
	if err := json.Unmarshal(c.tool(0, "decision", "list", "--persona", claudePersona).Result, &decisions); err != nil {
		t.Fatalf("decision list: %v", err)
	}
	if !slices.ContainsFunc(decisions.Items, func(d decisionItem) bool {
		return d.ID == raised.ID && d.Question == "Ship the parser?" && d.RaisedBy == claudePersona
	}) {
		t.Errorf("decision list as %s: %+v; want %s raised by the persona", claudePersona, decisions.Items, raised.ID)
	}

	// The hooks saw the turn, in order, and never a refused built-in.
	if got := s.hookEvents(); !slices.Equal(got, []string{"SessionStart", "UserPromptSubmit",
		"PreToolUse", "PostToolUse", "PreToolUse", "PostToolUse", "Stop"}) {
		t.Errorf("hook events %v", got)
	}

	// Stopped and started again, the session resumes the same
	// conversation under the same id.
	s.stop()
	api.script(modelTurn{Text: "Resumed."})
	s.start(true)
	s.prompt("Where were we?")
	reqs = api.waitScripted(6, claudeWait, "after the resume")
	s.waitHook("Stop", claudeWait)
	last := reqs[5]
	if got := last.Header.Get("X-Claude-Code-Session-Id"); got != s.id {
		t.Errorf("the resumed session's requests carry session id %q, want %q", got, s.id)
	}
	if !strings.Contains(string(last.Raw), "Begin the release work.") || !strings.Contains(string(last.Raw), "Released after the owner's approval.") {
		t.Errorf("the resumed session's request does not carry the earlier conversation (%d messages)", len(last.Body.Messages))
	}
}

// decisionItem is the part of a listed decision the test reads.
type decisionItem struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	RaisedBy string `json:"raised_by"`
}

// toolResults are the tool_result blocks of a request's messages, in order.
func toolResults(r modelRequest) []block {
	var out []block
	for _, m := range r.Body.Messages {
		for _, b := range m.blocks() {
			if b.Type == "tool_result" {
				out = append(out, b)
			}
		}
	}
	return out
}

// waitPendingFor waits until a call of tool waits on a confirmation, and
// returns the confirmation's id.
func (c *console) waitPendingFor(tool string) string {
	c.t.Helper()
	deadline := time.Now().Add(claudeWait)
	for time.Now().Before(deadline) {
		var list []struct {
			ID        string `json:"id"`
			State     string `json:"state"`
			Operation struct {
				Tool string `json:"tool"`
			} `json:"operation"`
		}
		c.cliJSON(&list, "confirm", "list")
		for _, cf := range list {
			if cf.State == "pending" && cf.Operation.Tool == tool {
				return cf.ID
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	c.fatalf("no pending confirmation for %s within %v", tool, claudeWait)
	return ""
}

// claudeSession is one persona's Claude Code session in its own tmux
// server: its private configuration directory (the first-run state, the
// MCP configuration, the hook settings) and its session id.
type claudeSession struct {
	t               *testing.T
	dir, program    string
	workdir, config string
	env, args       []string
	id              string
	hookLog         string
	term            *term
}

// newClaudeSession writes the session's configuration. The flags are the
// ones /work/notes/claude-flags.md verified for 2.1.328: one MCP server
// and no other (--mcp-config, --strict-mcp-config), no built-in tools
// (--tools ""), the stamp's tools allowed without a prompt and everything
// else denied without one (--allowedTools, --permission-mode dontAsk),
// hooks from --settings.
func newClaudeSession(t *testing.T, dir, program, bin, home, workdir, apiURL, lineage string, allowed []string) *claudeSession {
	t.Helper()
	sdir := filepath.Join(dir, "session")
	s := &claudeSession{t: t, dir: sdir, program: program, workdir: workdir,
		config: filepath.Join(sdir, "claude"), id: lineageUUID(t, lineage), hookLog: filepath.Join(sdir, "hooks.jsonl")}
	server := map[string]any{"type": "stdio", "command": bin, "args": []string{"mcp", "--home", home, "--persona", claudePersona}}
	mcp := map[string]any{"mcpServers": map[string]any{claudeServer: server}}
	hook := []any{map[string]any{"type": "command", "timeout": 10,
		"command": "cat >> " + shellQuote(s.hookLog) + " && echo >> " + shellQuote(s.hookLog)}}
	hooks := map[string]any{}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Notification", "Stop", "SessionEnd"} {
		hooks[ev] = []any{map[string]any{"matcher": "*", "hooks": hook}}
	}
	// The first-run state: onboarding done, the working directory trusted,
	// the environment's API key approved (by its last 20 characters, as
	// Claude Code's own dialog records it); and the server in the user
	// scope too, so that `claude mcp list` (which reads no --mcp-config)
	// checks the same server.
	state := map[string]any{
		"hasCompletedOnboarding": true,
		"customApiKeyResponses":  map[string]any{"approved": []string{claudeKey[len(claudeKey)-20:]}, "rejected": []string{}},
		"projects":               map[string]any{workdir: map[string]any{"hasTrustDialogAccepted": true}},
		"mcpServers":             mcp["mcpServers"],
	}
	writeJSON(t, filepath.Join(sdir, "mcp.json"), mcp)
	writeJSON(t, filepath.Join(sdir, "settings.json"), map[string]any{"hooks": hooks})
	writeJSON(t, filepath.Join(s.config, ".claude.json"), state)
	s.env = []string{"TERM=xterm-256color", "HOME=" + sdir, "CLAUDE_CONFIG_DIR=" + s.config,
		"ANTHROPIC_BASE_URL=" + apiURL, "ANTHROPIC_API_KEY=" + claudeKey, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
	s.args = []string{"--mcp-config", filepath.Join(sdir, "mcp.json"), "--strict-mcp-config", "--tools", "",
		"--allowedTools", strings.Join(allowed, ","), "--permission-mode", "dontAsk",
		"--settings", filepath.Join(sdir, "settings.json")}
	return s
}

// lineageUUID is the session id named by the persona's native session
// lineage ("ses-" and 32 hex digits): its digits as a UUID, version 4.
func lineageUUID(t *testing.T, lineage string) string {
	t.Helper()
	h := strings.TrimPrefix(lineage, "ses-")
	if len(h) != 32 {
		t.Fatalf("session lineage %q is not ses-<32 hex>", lineage)
	}
	return h[0:8] + "-" + h[8:12] + "-4" + h[13:16] + "-8" + h[17:20] + "-" + h[20:32]
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, path, string(b)+"\n")
}

// start runs Claude Code in the session's tmux server, naming the session
// by its id (--session-id) or resuming it (--resume), and waits for its
// input prompt.
func (s *claudeSession) start(resume bool) {
	s.t.Helper()
	name := "--session-id"
	if resume {
		name = "--resume"
	}
	argv := append([]string{"sh", "-c", `cd "$0" && exec "$@"`, s.workdir, s.program}, s.args...)
	s.term = startTerm(s.t, s.dir, s.env, append(argv, name, s.id)...)
	s.waitHook("SessionStart", claudeWait)
	s.term.waitFor("don't ask on", claudeWait)
}

// prompt types a prompt and submits it.
func (s *claudeSession) prompt(text string) {
	s.t.Helper()
	s.term.typeIn(text, text)
	s.term.keys("Enter")
}

// stop ends the session's tmux server, as a crash or a reboot would.
func (s *claudeSession) stop() {
	s.t.Helper()
	if err := s.term.tmux("kill-server"); err != nil {
		s.t.Fatalf("tmux kill-server: %v", err)
	}
}

// mcpList runs `claude mcp list` in the session's configuration.
func (s *claudeSession) mcpList() string {
	s.t.Helper()
	cmd := exec.Command(s.program, "mcp", "list")
	cmd.Dir = s.workdir
	cmd.Env = append(os.Environ(), s.env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("claude mcp list: %v\n%s", err, out)
	}
	return string(out)
}

// hookEvents are the events the session's hooks reported, in order.
func (s *claudeSession) hookEvents() []string {
	data, _ := os.ReadFile(s.hookLog)
	var events []string
	for line := range strings.Lines(string(data)) {
		var ev struct {
			Name      string `json:"hook_event_name"`
			SessionID string `json:"session_id"`
		}
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Name != "" {
			if ev.SessionID != s.id {
				s.t.Errorf("hook %s reported session %q, want %q", ev.Name, ev.SessionID, s.id)
			}
			events = append(events, ev.Name)
		}
	}
	return events
}

// waitHook waits until event is the last one the hooks reported.
func (s *claudeSession) waitHook(event string, d time.Duration) {
	s.t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		ev := s.hookEvents()
		if n := len(ev); n > 0 && ev[n-1] == event {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.term.fatalf("the hooks did not report %s within %v: %v", event, d, s.hookEvents())
}
