package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/harness"
	"github.com/virgo-hub/virgo-tui/internal/session"
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

// claudeEnv runs TestClaudeCodeResidentSession; make e2e-claude sets it.
const claudeEnv = "VIRGO_E2E_CLAUDE"

// placeholderTool is the one entry Claude Code 2.1.328 adds to the tools of
// every request when it may load tools lazily: "Reserved placeholder that
// keeps deferred tool loading active; never call this tool." It has no
// implementation (defer_loading, an empty schema), so it grants nothing.
const placeholderTool = "DeferredToolPlaceholder"

// TestClaudeCodeResidentSession is the proof with the real Claude Code (the
// version e2e/claude's lockfile pins) as a persona's resident session,
// started by `virgo-tui session start --harness claude-code` in the home's
// tmux server, against a scripted model endpoint and the console's real
// hub (whose waker types the wakes): the session's configuration gives it
// exactly the persona's MCP server (`claude mcp list` shows it connected);
// a message wakes the idle session and reconcile_wake says what about; the
// model calls an allowed tool and the hub records the call as the
// persona's; a Bash and an Edit attempt are refused by the harness itself
// (no request offered such a tool, and the tool_result is Claude Code's
// refusal); a confirm tool waits, the persona shown working and waiting,
// until the operator approves it in the console, and a message arriving
// meanwhile wakes the session only after the turn's Stop; and after
// `session stop`, `session start` resumes the same conversation under the
// same session id.
func TestClaudeCodeResidentSession(t *testing.T) {
	if os.Getenv(claudeEnv) != "1" {
		t.Skipf("%s=1 runs it (make e2e-claude): the real Claude Code as a resident session takes 60-120 s, over make test's budget", claudeEnv)
	}
	requireTools(t, "the Claude Code end-to-end test runs the pinned @anthropic-ai/claude-code (npm) in tmux", "tmux", "node", "npm")
	claude := filepath.Join(npmCI(t, "claude"), "node_modules", ".bin", "claude")
	bin := buildBinary(t)
	dir, err := os.MkdirTemp("", "vtcc") // short: the hub's socket lives under the home
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

	// The lead, whose session it is, and the root secretary, who sends it
	// work.
	for _, add := range [][]string{{"--scope", "work", "--project", "core", "--role", "lead", "--name", "Spica"},
		{"--scope", "root", "--role", "secretary", "--name", "Porrima"}} {
		var added struct{ Confirmation struct{ ID string } }
		c.cliJSON(&added, append([]string{"persona", "add"}, add...)...)
		c.cli("confirm", "approve", added.Confirmation.ID)
	}
	var proj struct{ Launcher []string }
	c.cliJSON(&proj, "stamp", "project", claudePersona, "--consumer", "launcher")
	var allowed []string
	for _, name := range proj.Launcher {
		allowed = append(allowed, "mcp__"+claudeServer+"__"+name)
	}

	api := startModelAPI(t)
	s := newClaudeSession(t, c, claude, api.url)
	if !sameNames(s.launch.Allowed, allowed) || s.launch.Resume {
		t.Fatalf("the launch: allowlist %v, resume %v; want the stamp's tools %v, a new session", s.launch.Allowed, s.launch.Resume, allowed)
	}
	workdir := s.launch.Workdir
	mustWrite(t, filepath.Join(workdir, "notes.md"), "keep this line\n")
	s.start()

	// The session's configuration holds the persona's server, and it
	// connects.
	if out := s.mcpList(); !strings.Contains(out, claudeServer+": "+bin+" mcp") || !strings.Contains(out, "✔ Connected") {
		s.fatalf("claude mcp list in the session's configuration:\n%s\nwant %s connected", out, claudeServer)
	}

	// Work arrives: a message wakes the fresh, idle session with the wake
	// prompt, and the model asks reconcile_wake what it is about. Then an
	// allowed tool, a Bash and an Edit attempt, a confirm tool, and the
	// answer.
	marker := filepath.Join(dir, "bash-ran")
	reconcile := modelTurn{ToolUses: []toolUse{{Name: "mcp__" + claudeServer + "__reconcile_wake"}}}
	api.script(
		reconcile,
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
	s.message("release 1", "please publish release 1")
	reqs := api.waitScripted(1, claudeWait, "after the first message", s.screen)
	if got := lastUserText(reqs[0]); got != session.WakePrompt {
		t.Fatalf("the first request after the message ends with %q, want the wake prompt %q", got, session.WakePrompt)
	}

	// The confirm tool waits in the hub, the session working and waiting
	// on the human: the model hears nothing more until the operator
	// approves in the console (and what it then hears is the approved
	// result, below). Work arriving meanwhile wakes nothing: the turn is
	// not over.
	api.waitScripted(5, claudeWait, "before the confirmation", s.screen)
	pending := c.waitPendingFor("publish_deployment_v1")
	s.waitPresence("working, waiting on the human", func(p claudePresence) bool { return p.Session == "working" && p.Waiting == 1 })
	if n := len(api.scripted()); n != 5 {
		t.Fatalf("with the publication pending, %d conversation requests reached the model endpoint, want 5 (the call must wait)\n%s", n, api.describe())
	}
	s.message("core#12", "please review core#12")
	c.press("2", "[2 Queue")
	filterQueue(c, pending, "publish_deployment_v1")
	c.press("a", "approved: "+claudePersona)
	api.script(reconcile, modelTurn{Text: "Reviewing core#12 next."})
	reqs = api.waitScripted(6, claudeWait, "after the approval", s.screen)

	// What the harness offered: the stamp's tools and nothing of its own.
	for i, r := range reqs {
		offered := slices.DeleteFunc(r.toolNames(), func(n string) bool { return n == placeholderTool })
		if !sameNames(offered, allowed) {
			t.Errorf("request %d offered %v\n  want exactly the stamp's %d tools %v", i, r.toolNames(), len(allowed), allowed)
		}
	}
	// What came back for each call.
	results := toolResults(reqs[5])
	if len(results) != 5 {
		t.Fatalf("the request after the approval carries %d tool results, want 5\n%s", len(results), api.describe())
	}
	if r := results[0]; r.IsError || !strings.Contains(r.text(), "please publish release 1") {
		t.Errorf("reconcile_wake's result does not say what the wake was about (error %v): %s", r.IsError, r.text())
	}
	var raised struct {
		ID string `json:"id"`
	}
	if results[1].IsError || json.Unmarshal([]byte(results[1].text()), &raised) != nil || raised.ID == "" {
		t.Errorf("raise_decision's result (error %v): %s", results[1].IsError, results[1].text())
	}
	for i, tool := range map[int]string{2: "Bash", 3: "Edit"} {
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
	if r := results[4]; r.IsError || !strings.Contains(r.text(), `"status":"approved"`) {
		t.Errorf("the publication's result after the approval (error %v): %s", r.IsError, r.text())
	}
	if n := strings.Count(string(reqs[5].Raw), session.WakePrompt); n != 1 {
		t.Errorf("the request that ends the turn holds the wake prompt %d times, want once (the first wake): a wake was typed while the session worked", n)
	}

	// The second message's wake comes at the turn boundary: after the
	// turn's Stop, as the next turn's prompt.
	reqs = api.waitScripted(8, claudeWait, "after the turn ended with work waiting", s.screen)
	if got := lastUserText(reqs[6]); got != session.WakePrompt {
		t.Fatalf("the request after the turn ends with %q, want the wake prompt", got)
	}
	if r := toolResults(reqs[7]); len(r) != 6 || !strings.Contains(r[5].text(), "please review core#12") {
		t.Errorf("the second reconcile_wake does not say the second message arrived: %+v", r)
	}
	s.waitPresence("idle (Stop)", func(p claudePresence) bool { return p.Session == "idle" && p.Waiting == 0 })

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

	// Stopped and started again, the session resumes the same
	// conversation under the same id, and a message wakes it there.
	s.stop()
	if p := s.presence(); p.State != "offline" || p.Session != "ended" {
		t.Fatalf("presence after session stop: %+v; want offline, ended", p)
	}
	first := s.launch.SessionID
	api.script(modelTurn{Text: "Resumed."})
	s.start()
	if !s.launch.Resume || s.launch.SessionID != first {
		t.Fatalf("the second start: session %s resume %v; want %s resumed", s.launch.SessionID, s.launch.Resume, first)
	}
	s.message("next", "anything else?")
	reqs = api.waitScripted(9, claudeWait, "after the resume", s.screen)
	for i, r := range reqs {
		if h, m := r.Header.Get("X-Claude-Code-Session-Id"), r.sessionID(); h != first || m != first {
			t.Errorf("request %d carries session id %q (header), %q (metadata), want the lineage's %q", i, h, m, first)
		}
	}
	last := reqs[8]
	if lastUserText(last) != session.WakePrompt || !strings.Contains(string(last.Raw), "Released after the owner's approval.") {
		t.Errorf("the resumed session's first request (%d messages) is not the wake after the earlier conversation", len(last.Body.Messages))
	}
}

// lastUserText is the text of the request's last user message (its text
// blocks), what the harness was last told.
func lastUserText(r modelRequest) string {
	for i := len(r.Body.Messages) - 1; i >= 0; i-- {
		m := r.Body.Messages[i]
		if m.Role != "user" {
			continue
		}
		var parts []string
		for _, b := range m.blocks() {
			if b.Type == "text" && !strings.HasPrefix(b.Text, "<system-reminder>") {
				parts = append(parts, b.Text)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
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

// claudeSession is the persona's resident Claude Code session as `virgo-tui
// session` runs it, seen through the command line: the launch `stamp
// project --consumer launcher --harness claude-code` prints is what `session
// start` runs.
type claudeSession struct {
	t       *testing.T
	c       *console
	program string
	// env is the environment `session start` runs in, which the home's tmux
	// server and so the harness inherit: the scripted model's address and
	// key.
	env    []string
	tmux   session.Tmux
	launch harness.Launch
}

func newClaudeSession(t *testing.T, c *console, program, apiURL string) *claudeSession {
	t.Helper()
	s := &claudeSession{t: t, c: c, program: program,
		env: []string{"TERM=xterm-256color", "HOME=" + filepath.Join(filepath.Dir(c.home), "claude-home"),
			"ANTHROPIC_BASE_URL=" + apiURL, "ANTHROPIC_API_KEY=" + claudeKey, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}}
	var err error
	if s.tmux, err = session.ForHome(c.home); err != nil {
		t.Fatal(err)
	}
	// The home's own tmux server, and nothing else, ends with the test.
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", s.tmux.Socket(), "kill-server").Run() })
	s.plan()
	return s
}

// run runs a virgo-tui subcommand in the session's environment.
func (s *claudeSession) run(args ...string) []byte {
	s.t.Helper()
	cmd := exec.Command(s.c.bin, append([]string{"--home", s.c.home}, args...)...)
	cmd.Env = append(append(os.Environ(), "VIRGO_PRINCIPAL="+operator, "NO_COLOR=1"), s.env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.fatalf("virgo-tui %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// plan reads the launch `session start` would run now.
func (s *claudeSession) plan() harness.Launch {
	s.t.Helper()
	out := s.run("stamp", "project", claudePersona, "--consumer", "launcher", "--harness", "claude-code", "--program", s.program, "-o", "json")
	if err := json.Unmarshal(out, &s.launch); err != nil {
		s.fatalf("the printed launch: %v\n%s", err, out)
	}
	return s.launch
}

// start starts (or resumes) the session and waits until its SessionStart
// hook reported it idle.
func (s *claudeSession) start() {
	s.t.Helper()
	s.plan()
	s.run("session", "start", claudePersona, "--harness", "claude-code", "--program", s.program)
	s.waitPresence("idle (SessionStart)", func(p claudePresence) bool { return p.Session == "idle" })
}

// message sends the persona a coordination message from the root
// secretary: work arriving for its seat.
func (s *claudeSession) message(subject, body string) {
	s.t.Helper()
	s.run("msg", "send", "--as", "root/secretary", "--to", claudePersona, "--subject", subject, body)
}

// stop stops the session with `session stop`.
func (s *claudeSession) stop() {
	s.t.Helper()
	s.run("session", "stop", claudePersona)
}

// screen is the session's pane, for a failure message.
func (s *claudeSession) screen() string {
	lines, err := s.tmux.LastLines(context.Background(), harness.SessionName(claudePersona), termHeight)
	if err != nil {
		return fmt.Sprintf("(no screen: %v)", err)
	}
	return "--- the session's screen ---\n" + strings.Join(lines, "\n")
}

func (s *claudeSession) fatalf(format string, args ...any) {
	s.t.Helper()
	s.t.Fatalf(format+"\n%s", append(args, s.screen())...)
}

// claudePresence is the part of the persona's presence the test reads.
type claudePresence struct {
	State   string `json:"state"`
	Session string `json:"session"`
	Waiting int    `json:"waiting"`
}

// presence is the persona's presence as the hub lists it.
func (s *claudeSession) presence() claudePresence {
	s.t.Helper()
	var ps []struct {
		Address string `json:"address"`
		claudePresence
	}
	if err := json.Unmarshal(s.run("presence", "list", "-o", "json"), &ps); err != nil {
		s.fatalf("presence list: %v", err)
	}
	for _, p := range ps {
		if p.Address == claudePersona {
			return p.claudePresence
		}
	}
	s.fatalf("%s is not in the presence list", claudePersona)
	return claudePresence{}
}

// waitPresence waits until the persona's presence satisfies ok.
func (s *claudeSession) waitPresence(what string, ok func(claudePresence) bool) {
	s.t.Helper()
	deadline := time.Now().Add(claudeWait)
	for {
		p := s.presence()
		if ok(p) {
			return
		}
		if time.Now().After(deadline) {
			s.fatalf("waited %v for the presence of %s to be %s: %+v", claudeWait, claudePersona, what, p)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// mcpList runs `claude mcp list` in the session's configuration: its
// CLAUDE_CONFIG_DIR and working directory.
func (s *claudeSession) mcpList() string {
	s.t.Helper()
	cmd := exec.Command(s.program, "mcp", "list")
	cmd.Dir = s.launch.Workdir
	cmd.Env = append(os.Environ(), s.env...)
	for _, kv := range s.launch.Env {
		if strings.HasPrefix(kv, "CLAUDE_CONFIG_DIR=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.fatalf("claude mcp list: %v\n%s", err, out)
	}
	return string(out)
}
