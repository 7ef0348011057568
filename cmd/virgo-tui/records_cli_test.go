package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/tools"

	"github.com/virgo-hub/virgo-tui/internal/decisions"
	"github.com/virgo-hub/virgo-tui/internal/runs"
	"github.com/virgo-hub/virgo-tui/internal/workspace"
)

// toolJSON runs a tool command with -o json and returns the call.
func toolJSON(t *testing.T, c *cli, wantCode int, args ...string) tools.ToolCall {
	t.Helper()
	out, errOut, code := c.run(append(args, "-o", "json")...)
	if code != wantCode {
		t.Fatalf("%v: exit %d (want %d), stderr %s, stdout %s", args, code, wantCode, errOut, out)
	}
	var call tools.ToolCall
	if err := json.Unmarshal([]byte(out), &call); err != nil {
		t.Fatalf("%v: %v in %s", args, err, out)
	}
	return call
}

func result[T any](t *testing.T, call tools.ToolCall) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(call.Result, &v); err != nil {
		t.Fatalf("%s: %v in %s", call.Tool, err, call.Result)
	}
	return v
}

// The run and decision commands, as personas with their own tokens (--as),
// through the hub and its tool calls: a deputy works a run of its assigned
// task, the lead reads it; the lead raises and resolves a decision; the
// secretary's relay waits for henry (exit 3) and, retried after henry
// approves, records henry as the decider.
func TestRunAndDecisionCommands(t *testing.T) {
	c := confirmSetup(t)
	c.activate("--scope", "root", "--role", "secretary", "--name", "Spica", "--human", "human:henry")
	c.ok("confirm", "assign", "--as", "work/core/lead", "--persona", "work/core/deputy", "--task", "work/core/t-1")
	dep := []string{"--as", "work/core/deputy"}

	run := result[runs.Run](t, toolJSON(t, c, 0, append([]string{"run", "create", "--task", "t-1", "--title", "first pass"}, dep...)...))
	wantContains(t, "advance", c.ok(append([]string{"run", "advance", run.ID, "--state", "running", "--note", "go"}, dep...)...),
		"run "+run.ID+" of task t-1 (work/core): running")
	wantContains(t, "event", c.ok(append([]string{"run", "event", run.ID, "--kind", "output", "--text", "3 of 4 files"}, dep...)...),
		"event 2 (output)")
	file := filepath.Join(workspace.HomeDir(c.home, "work/core/deputy"), "out", "parser.bin")
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("parser"), 0o600); err != nil {
		t.Fatal(err)
	}
	wantContains(t, "artifact", c.ok(append([]string{"run", "artifact", run.ID, "--name", "parser", "--path", "out/parser.bin"}, dep...)...),
		"6 bytes, sha256:b17d45121150928f", "at out/parser.bin")
	wantContains(t, "missing artifact", c.fails(append([]string{"run", "artifact", run.ID, "--name", "gone", "--path", "out/gone.bin"}, dep...)...),
		"no such file")
	wantContains(t, "read artifact", c.ok("run", "read-artifact", "--as", "work/core/lead", run.ID, "parser"), "parser")
	_, errOut, code := c.run(append([]string{"run", "advance", run.ID, "--state", "pending"}, dep...)...)
	if code != 1 {
		t.Errorf("an illegal move: exit %d", code)
	}
	wantContains(t, "illegal move named", errOut, "illegal run state move: running → pending")
	wantContains(t, "list", c.ok("run", "list", "--as", "work/core/lead", "--task", "t-1"), run.ID, "running", "first pass")
	wantContains(t, "show", c.ok("run", "show", "--as", "work/core/lead", run.ID), "pending → running", "3 of 4 files", "artifact parser: 6 bytes")

	d := result[decisions.Decision](t, toolJSON(t, c, 0, "decision", "raise", "--as", "work/core/lead", "--question", "Which parser?",
		"--option", "hand-written", "--option", "generated", "--context", "two drafts"))
	wantContains(t, "resolve", c.ok("decision", "resolve", "--as", "work/core/lead", d.ID, "--choice", "generated"),
		`resolved: "generated" by work/core/lead, decided by work/core/lead`)

	asked := result[decisions.Decision](t, toolJSON(t, c, 0, "decision", "raise", "--as", "work/core/lead", "--question", "Ship it?",
		"--option", "yes", "--option", "no"))
	wait := toolJSON(t, c, exitConfirm, "decision", "resolve", "--as", "root/secretary", asked.ID, "--choice", "yes", "--correlation-id", "relay-1")
	if wait.ConfirmationID == "" || wait.Status != tools.ToolConfirm {
		t.Fatalf("the secretary's relay: %+v", wait)
	}
	c.ok("confirm", "approve", wait.ConfirmationID, "--as", "human:henry")
	wantContains(t, "relayed", c.ok("decision", "resolve", "--as", "root/secretary", asked.ID, "--choice", "yes", "--correlation-id", "relay-1"),
		`resolved: "yes" by root/secretary, decided by human:henry (confirmation `+wait.ConfirmationID+")")
	list := c.ok("decision", "list", "--as", "work/core/lead", "--state", "resolved")
	if strings.Count(list, "resolved") != 2 {
		t.Fatalf("decision list:\n%s", list)
	}
	wantContains(t, "audit", c.ok("audit"), "tool-call")
}
