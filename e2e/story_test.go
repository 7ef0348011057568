package e2e

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/workspace"
)

// writeWorkspace writes a file into the workspace of the persona at
// address in the console's home, as its runtime would.
func (c *console) writeWorkspace(address, rel, content string) {
	c.t.Helper()
	p := filepath.Join(workspace.HomeDir(c.home, address), rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		c.t.Fatal(err)
	}
}

// toolAnswer is the part of a tool command's -o json answer the story
// reads.
type toolAnswer struct {
	Status         string          `json:"status"`
	ConfirmationID string          `json:"confirmation_id"`
	Result         json.RawMessage `json:"result"`
}

// tool runs a run or decision command as a persona (--as) with -o json and
// returns its answer and exit status (0 done, 3 waiting on a confirmation).
func (c *console) tool(wantExit int, args ...string) toolAnswer {
	c.t.Helper()
	cmd := exec.Command(c.bin, append(append([]string{"--home", c.home}, args...), "-o", "json")...)
	cmd.Env = storyEnv()
	out, err := cmd.Output()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		c.t.Fatalf("virgo-tui %s: %v", strings.Join(args, " "), err)
	}
	var a toolAnswer
	if code != wantExit || json.Unmarshal(out, &a) != nil {
		stderr := ""
		if ee != nil {
			stderr = string(ee.Stderr)
		}
		c.fatalf("virgo-tui %s: exit %d (want %d)\n%s%s", strings.Join(args, " "), code, wantExit, out, stderr)
	}
	return a
}

// storyEnv is the environment of the story's commands: acting as the
// owner, who is also the local operator a persona's seat is looked up as.
func storyEnv() []string {
	return append(os.Environ(), "VIRGO_PRINCIPAL="+operator, "USER="+strings.TrimPrefix(operator, "human:"), "NO_COLOR=1")
}

func field(c *console, raw json.RawMessage, name string) string {
	c.t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		c.fatalf("result %s: %v", raw, err)
	}
	s, _ := m[name].(string)
	return s
}

// The story's lead and deputy sit in a project of their own: the demo runs
// a simulated runtime for each of its seats, and a runtime acts on what it
// is told (its deputy runs a task assigned to it and reports it done), so
// the story's steps as work/core/deputy would race the demo's runtime of
// that same persona. No runtime holds these seats but the story's commands.
const (
	storyProject = "parser"
	storyLead    = "work/" + storyProject + "/lead"
	storyDeputy  = "work/" + storyProject + "/deputy"
)

// seat registers a persona at address under the first free name and
// approves its activation as its bound human, from the command line.
func (c *console) seat(address string) {
	c.t.Helper()
	parts := strings.Split(address, "/")
	if len(parts) != 3 {
		c.fatalf("seat %q: want scope/project/role", address)
	}
	var names []string
	c.cliJSON(&names, "persona", "names", "--count", "1")
	var reg struct {
		Confirmation struct {
			ID string `json:"id"`
		} `json:"confirmation"`
	}
	c.cliJSON(&reg, "persona", "add", "--scope", parts[0], "--project", parts[1], "--role", parts[2], "--name", names[0])
	c.cli("confirm", "approve", reg.Confirmation.ID)
}

// The spec's collaboration story through the command line, as personas
// with their own tokens, against the console's hub: the lead assigns a
// task to its deputy; the deputy creates a run, appends events, records an
// artifact, finishes it and reports the task done with the run as
// evidence; the lead raises a decision and resolves it; the
// secretary relays a second decision, which waits on the owner — who
// approves it in the console, in a real terminal — and then records the
// owner as the decider. Afterwards the records, the audit log and the
// console agree.
func TestCollaborationStory(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the story builds the binary and drives the console in tmux")
	}
	c := startConsole(t, false, "")
	c.seat(storyLead)
	c.seat(storyDeputy)
	task := field(c, c.tool(0, "task", "assign", "--as", storyLead, "--to", storyDeputy, "--title", "port the parser",
		"--brief", "make it total").Result, "id")
	dep := []string{"--as", storyDeputy}
	run := field(c, c.tool(0, append([]string{"run", "create", "--task", task, "--title", "port the parser"}, dep...)...).Result, "id")
	c.tool(0, append([]string{"run", "advance", run, "--state", "running", "--note", "starting"}, dep...)...)
	c.tool(0, append([]string{"run", "event", run, "--kind", "output", "--text", "parsed 4 of 4 files"}, dep...)...)
	c.writeWorkspace(storyDeputy, "out/parser.bin", "parser")
	c.tool(0, append([]string{"run", "artifact", run, "--name", "parser", "--path", "out/parser.bin"}, dep...)...)
	c.tool(0, append([]string{"run", "advance", run, "--state", "succeeded", "--note", "done"}, dep...)...)
	c.tool(0, append([]string{"task", "report", task, "--progress", "ported; all files parse", "--evidence", run, "--state", "done"}, dep...)...)

	lead := []string{"--as", storyLead}
	own := field(c, c.tool(0, append([]string{"decision", "raise", "--question", "Which parser?", "--option", "hand-written",
		"--option", "generated"}, lead...)...).Result, "id")
	c.tool(0, append([]string{"decision", "resolve", own, "--choice", "generated", "--reason", "smaller"}, lead...)...)
	relayed := field(c, c.tool(0, append([]string{"decision", "raise", "--question", "Ship the parser?", "--option", "yes",
		"--option", "no"}, lead...)...).Result, "id")

	sec := []string{"--as", "root/secretary", "--correlation-id", "story-relay"}
	wait := c.tool(3, append([]string{"decision", "resolve", relayed, "--choice", "yes"}, sec...)...)
	if wait.Status != "confirm" || wait.ConfirmationID == "" {
		c.fatalf("the secretary's relay: %+v", wait)
	}

	// The owner decides in the console: the relay waits in the queue.
	c.press("2", "[2 Queue")
	filterQueue(c, wait.ConfirmationID, "resolve_decision")
	c.press("a", "approved: root/secretary")
	clearFilter(c)

	done := c.tool(0, append([]string{"decision", "resolve", relayed, "--choice", "yes"}, sec...)...)
	var d struct {
		State      string `json:"state"`
		Resolution struct {
			Option         string `json:"option"`
			ResolvedBy     string `json:"resolved_by"`
			DecidedBy      string `json:"decided_by"`
			ConfirmationID string `json:"confirmation_id"`
		} `json:"resolution"`
	}
	if err := json.Unmarshal(done.Result, &d); err != nil {
		c.fatalf("relayed resolution: %v", err)
	}
	if r := d.Resolution; d.State != "resolved" || r.Option != "yes" || r.ResolvedBy != "root/secretary" || r.DecidedBy != operator ||
		r.ConfirmationID != wait.ConfirmationID {
		c.fatalf("the relayed resolution: %+v", d)
	}

	// The records agree with what was done.
	if st := field(c, c.tool(0, append([]string{"task", "show", task}, lead...)...).Result, "state"); st != "done" {
		c.fatalf("task show %s: state %q, want done", task, st)
	}
	shown := c.tool(0, append([]string{"run", "show", run}, lead...)...)
	var view struct {
		State string `json:"state"`
		Log   struct {
			Items []struct{ Kind, Text string }
		} `json:"log"`
		Artifacts []struct{ Name, SHA256 string } `json:"artifact_list"`
	}
	if err := json.Unmarshal(shown.Result, &view); err != nil || view.State != "succeeded" || len(view.Log.Items) != 3 ||
		len(view.Artifacts) != 1 || view.Log.Items[1].Text != "parsed 4 of 4 files" {
		c.fatalf("run show: %s (%v)", shown.Result, err)
	}
	// The audit log holds every call of the story's personas and the
	// owner's approval (the demo's runtimes make calls of their own).
	var log []struct {
		Event          string `json:"event"`
		Actor          string `json:"actor"`
		Operation      string `json:"operation"`
		ConfirmationID string `json:"confirmation_id"`
	}
	c.cliJSON(&log, "audit")
	calls := map[string]int{}
	approvedByOwner := false
	for _, e := range log {
		if e.Event == "tool-call" && (strings.HasPrefix(e.Actor, "work/"+storyProject+"/") || strings.HasPrefix(e.Actor, "root/secretary")) {
			calls[strings.Fields(e.Operation + " ? ?")[1]]++
		}
		if e.Event == "approved" && e.ConfirmationID == wait.ConfirmationID && e.Actor == operator {
			approvedByOwner = true
		}
	}
	for tool, n := range map[string]int{"assign_task": 1, "report_task": 1, "create_run": 1, "advance_run": 2, "append_run_event": 1, "record_artifact": 1,
		"raise_decision": 2, "resolve_decision": 2} {
		if calls[tool] != n {
			t.Errorf("audit: %d %s calls, want %d (all: %v)", calls[tool], tool, n, calls)
		}
	}
	if !approvedByOwner {
		t.Errorf("audit: no approval of %s by %s", wait.ConfirmationID, operator)
	}
	// The console agrees: the relay left the queue.
	time.Sleep(quiet)
	if s := c.screen(); strings.Contains(s, wait.ConfirmationID) {
		c.fatalf("the approved relay is still on the console:\n%s", s)
	}
}
