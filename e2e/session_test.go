package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/harness"
	"github.com/virgo-hub/virgo-tui/internal/session"
)

// sessionPersona is the seat whose resident session the story runs: a
// lead, whose stamp has confirm tools.
const sessionPersona = "work/core/lead"

// sessionStory is the home, hub and scripted agent of the session story.
type sessionStory struct {
	t      testing.TB
	bin    string
	home   string
	client string // the scripted agent's binary
	tmux   session.Tmux
	log    string // the agent's log, in the persona's workspace
}

// startSessionStory builds the binary and the scripted agent, enrols ada,
// runs `serve` (the process that runs sessions), and registers and
// activates the lead.
func startSessionStory(t testing.TB) *sessionStory {
	if testing.Short() {
		t.Skip("-short: the session story builds the binary and a scripted agent and runs them in tmux (about 20 s)")
	}
	requireTools(t, "resident sessions run in tmux", "tmux")
	bin := buildBinary(t)
	client := filepath.Join(t.TempDir(), "sessionclient")
	build := exec.Command("go", "build", "-o", client, "./e2e/testdata/sessionclient")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build sessionclient: %v\n%s", err, out)
	}
	dir, err := os.MkdirTemp("", "vtses") // short: the hub's socket lives under the home
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	home := filepath.Join(dir, "home")
	s := &sessionStory{t: t, bin: bin, home: home, client: client,
		log: filepath.Join(home, "workspaces", sessionPersona, "session-client.log")}
	s.must("operator", "add", "ada")
	if s.tmux, err = session.ForHome(home); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The home's own tmux server, and nothing else, ends with the test.
		_ = exec.Command("tmux", "-L", s.tmux.Socket(), "kill-server").Run()
	})
	serveLog := filepath.Join(dir, "serve.log")
	logf, err := os.Create(serveLog)
	if err != nil {
		t.Fatal(err)
	}
	serve := exec.Command(bin, "--home", home, "serve")
	serve.Env = append(os.Environ(), "VIRGO_PRINCIPAL="+operator) // it wakes sessions as ada
	serve.Stdout, serve.Stderr = logf, logf
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = serve.Process.Signal(syscall.SIGTERM)
		_ = serve.Wait()
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(serveLog)
			t.Logf("--- serve's log ---\n%s", tail(b, 3000))
			b, _ = os.ReadFile(s.log)
			t.Logf("--- the agent's log ---\n%s", b)
		}
	})
	for deadline := time.Now().Add(startTimeout); ; time.Sleep(50 * time.Millisecond) {
		if b, _ := os.ReadFile(serveLog); strings.Contains(string(b), "hub serving") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start in %s", startTimeout)
		}
	}
	var added struct {
		Confirmation struct{ ID string }
	}
	s.mustJSON(&added, "persona", "add", "--scope", "work", "--project", "core", "--role", "lead", "--name", "Spica")
	s.must("confirm", "approve", added.Confirmation.ID)
	// The secretary sends the lead work.
	s.mustJSON(&added, "persona", "add", "--scope", "root", "--role", "secretary", "--name", "Porrima")
	s.must("confirm", "approve", added.Confirmation.ID)
	return s
}

// run runs a subcommand and returns its output and error (stderr in it).
func (s *sessionStory) run(args ...string) (string, error) {
	cmd := exec.Command(s.bin, append([]string{"--home", s.home}, args...)...)
	cmd.Env = append(os.Environ(), "VIRGO_PRINCIPAL="+operator, "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// must runs a subcommand that must succeed and returns its output.
func (s *sessionStory) must(args ...string) string {
	s.t.Helper()
	out, err := s.run(args...)
	if err != nil {
		s.t.Fatalf("virgo-tui %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// mustJSON runs a subcommand with -o json and decodes its answer into v.
func (s *sessionStory) mustJSON(v any, args ...string) {
	s.t.Helper()
	cmd := exec.Command(s.bin, append([]string{"--home", s.home}, append(args, "-o", "json")...)...)
	cmd.Env = append(os.Environ(), "VIRGO_PRINCIPAL="+operator, "NO_COLOR=1")
	out, err := cmd.Output()
	if err == nil {
		err = json.Unmarshal(out, v)
	}
	if err != nil {
		s.t.Fatalf("virgo-tui %s -o json: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// fails runs a subcommand that must fail and returns what it said.
func (s *sessionStory) fails(args ...string) string {
	s.t.Helper()
	out, err := s.run(args...)
	if err == nil {
		s.t.Fatalf("virgo-tui %s succeeded:\n%s", strings.Join(args, " "), out)
	}
	return out
}

// presence is the lead's presence as the hub lists it.
func (s *sessionStory) presence() (p struct {
	State    string `json:"state"`
	Session  string `json:"session"`
	Waiting  int    `json:"waiting"`
	Activity string `json:"activity"`
}) {
	s.t.Helper()
	var ps []json.RawMessage
	s.mustJSON(&ps, "presence", "list")
	for _, raw := range ps {
		var head struct{ Address string }
		_ = json.Unmarshal(raw, &head)
		if head.Address == sessionPersona {
			_ = json.Unmarshal(raw, &p)
			return p
		}
	}
	s.t.Fatalf("%s is not in the presence list", sessionPersona)
	return p
}

// waitPresence waits until the lead's presence satisfies ok.
func (s *sessionStory) waitPresence(what string, ok func(state, sess string, waiting int) bool) {
	s.t.Helper()
	deadline := time.Now().Add(stepTimeout)
	for {
		p := s.presence()
		if ok(p.State, p.Session, p.Waiting) {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("waited %s for the presence of %s to be %s: %+v", stepTimeout, sessionPersona, what, p)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitLog waits until the agent's log holds want, counting from line from,
// and returns the number of lines it has then.
func (s *sessionStory) waitLog(from int, want string) int {
	s.t.Helper()
	deadline := time.Now().Add(stepTimeout)
	for {
		b, _ := os.ReadFile(s.log)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		for i := from; i < len(lines); i++ {
			if strings.Contains(lines[i], want) {
				return len(lines)
			}
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("waited %s for %q in the agent's log from line %d:\n%s", stepTimeout, want, from, b)
		}
		time.Sleep(10 * time.Millisecond) // fine enough for the benchmarks' times
	}
}

// prompt types a line into the lead's session, as an operator would.
func (s *sessionStory) prompt(line string) {
	s.t.Helper()
	if err := s.tmux.Type(context.Background(), harness.SessionName(sessionPersona), line); err != nil {
		s.t.Fatal(err)
	}
}

// listed is the lead's session as `session list -o json` says.
func (s *sessionStory) listed() session.Info {
	s.t.Helper()
	var ss []session.Info
	s.mustJSON(&ss, "session", "list")
	for _, in := range ss {
		if in.Address == sessionPersona {
			return in
		}
	}
	s.t.Fatalf("no session of %s in %+v", sessionPersona, ss)
	return session.Info{}
}

// TestCommandHarnessSessionStory is the resident session story with the
// command harness and a scripted MCP client (the MCP Go SDK's): the
// table's refusal, the launch printed as it runs, one session per seat, an
// allowed call, a confirm call that waits until the human approves, hooks
// moving presence, work arriving meanwhile waking the session once at the
// turn boundary (never while it works), a crash shown with its status and
// last lines, a restart resuming the same session, and a clean stop.
func TestCommandHarnessSessionStory(t *testing.T) {
	s := startSessionStory(t)
	start := []string{"session", "start", sessionPersona, "--harness", "command", "--program", s.client}

	// The lead's stamp has confirm tools, and a command harness locks
	// nothing: refused, unless the operator states the program is an MCP
	// client only.
	if out := s.fails(start...); !strings.Contains(out, "cannot switch off its own tools") || !strings.Contains(out, "--mcp-client-only") {
		t.Fatalf("a command harness for a stamp with confirm tools: %s", out)
	}
	start = append(start, "--mcp-client-only")

	// What stamp project prints is what the session runs.
	var launch harness.Launch
	s.mustJSON(&launch, append([]string{"stamp", "project", sessionPersona, "--consumer", "launcher"}, start[3:]...)...)
	var proj struct{ Launcher []string }
	s.mustJSON(&proj, "stamp", "project", sessionPersona, "--consumer", "launcher")
	home, _ := filepath.Abs(s.home)
	if want := []string{s.bin, "mcp", "--persona", sessionPersona, "--home", home}; !slices.Equal(launch.MCPCommand, want) {
		t.Fatalf("the MCP command %q, want %q", launch.MCPCommand, want)
	}
	if !sameNames(launch.Allowed, proj.Launcher) || launch.Resume {
		t.Fatalf("the launch %+v: want the allowlist %v, a new session", launch, proj.Launcher)
	}

	s.must(start...)
	lines := s.waitLog(0, "ready tools="+strconv.Itoa(len(proj.Launcher)))
	s.waitLog(0, "start session="+launch.SessionID+" resume=false")
	s.waitPresence("idle (SessionStart)", func(_, sess string, _ int) bool { return sess == "idle" })
	if out := s.fails(start...); !strings.Contains(out, "already running") {
		t.Fatalf("a second start of a running seat: %s", out)
	}
	if fi, err := os.Stat(harness.Dir(home, sessionPersona)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the session directory: %v, %v; want 0700", fi, err)
	}

	// An allowed call.
	s.prompt("list")
	lines = s.waitLog(lines, "result workspace_list error=false")
	s.waitPresence("idle (Stop)", func(_, sess string, _ int) bool { return sess == "idle" })

	// A confirm call waits, the persona waiting on the human, until ada
	// approves it. Work that arrives meanwhile wakes nothing while the turn
	// runs: the wake is typed at its Stop.
	s.prompt("publish")
	s.waitPresence("working and waiting", func(_, sess string, waiting int) bool { return sess == "working" && waiting == 1 })
	s.must("msg", "send", "--as", "root/secretary", "--to", sessionPersona, "--subject", "review core#12", "please review core#12")
	time.Sleep(2 * session.WakeRetry) // a wrong waker would type now
	var pending []struct {
		ID      string `json:"id"`
		Persona string `json:"persona"`
	}
	s.mustJSON(&pending, "confirm", "list")
	if len(pending) != 1 {
		t.Fatalf("pending confirmations %+v, want the publication", pending)
	}
	if p := s.presence(); !strings.Contains(p.Activity, "to decide "+pending[0].ID) {
		t.Fatalf("the waiting persona's activity %q does not say which confirmation (%s)", p.Activity, pending[0].ID)
	}
	s.must("confirm", "approve", pending[0].ID)
	lines = s.waitLog(lines, "result publish_deployment_v1 error=false")
	// Woken once, at the turn boundary, and reconcile_wake says why.
	lines = s.waitLog(lines, "input busy=false "+session.WakePrompt)
	lines = s.waitLog(lines, "result reconcile_wake error=false")
	s.waitPresence("idle after the wake", func(_, sess string, waiting int) bool { return sess == "idle" && waiting == 0 })
	time.Sleep(2 * session.WakeRetry) // a second wake would come now
	b, _ := os.ReadFile(s.log)
	if strings.Contains(string(b), "input busy=true") || strings.Count(string(b), session.WakePrompt) != 1 ||
		!strings.Contains(string(b), "please review core#12") {
		t.Fatalf("want one wake, typed at the turn boundary, answered by reconcile_wake with the message:\n%s", b)
	}

	// The agent crashes: the session shows exited, with the status and
	// the last lines, and presence does not claim it idle for long.
	s.prompt("crash")
	deadline := time.Now().Add(stepTimeout)
	for in := s.listed(); in.State != session.StateExited; in = s.listed() {
		if time.Now().After(deadline) {
			t.Fatalf("the crashed session is listed %+v", in)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if in := s.listed(); in.Status != 3 || !strings.Contains(strings.Join(in.LastLines, "\n"), "scripted failure") || !in.Turned {
		t.Fatalf("the crashed session: %+v; want status 3, its last lines, a turn recorded", in)
	}
	if out, _ := s.run("session", "list"); !strings.Contains(out, "exited 3") || !strings.Contains(out, "scripted failure") {
		t.Fatalf("session list after the crash:\n%s", out)
	}

	// Start again: the same session, resumed.
	s.must(start...)
	lines = s.waitLog(lines, "start session="+launch.SessionID+" resume=true")
	s.waitLog(lines, "ready tools=")
	s.waitPresence("idle (resumed)", func(state, sess string, _ int) bool { return sess == "idle" && state == "active" })

	// A clean stop: the MCP server ends, presence offline at once.
	if len(mcpServers(s.bin, home)) != 1 {
		t.Fatalf("the running session's MCP servers: %v, want one", mcpServers(s.bin, home))
	}
	s.must("session", "stop", sessionPersona)
	for deadline := time.Now().Add(time.Second); len(mcpServers(s.bin, home)) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the session's MCP server %v still runs a second after the stop", mcpServers(s.bin, home))
		}
	}
	p := s.presence()
	if p.State != "offline" || p.Session != "ended" {
		t.Fatalf("presence right after session stop: %+v; want offline, ended", p)
	}
	if in := s.listed(); in.State != session.StateStopped {
		t.Fatalf("after stop the session is listed %+v", in)
	}
	if out := s.fails("session", "stop", sessionPersona); !strings.Contains(out, "has no session") {
		t.Fatalf("stopping a stopped session: %s", out)
	}
}
