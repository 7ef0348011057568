package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// The task commands are the task tools through the hub, as the persona
// (--as ADDRESS, its own token) or as an operator acting for it: the lead
// assigns, the deputy lists and reports, the operator shows; a deputy
// assigning is denied (exit 4), and hostile text is refused, never stored.
func TestTaskCommandsAreToolCalls(t *testing.T) {
	c := confirmSetup(t)
	var call struct {
		Status string
		Result struct{ ID, State string }
	}
	out := c.ok("task", "assign", "--as", "work/core/lead", "--to", "work/core/deputy", "--title", "port the parser",
		"--brief", "make it total", "--bound", "internal/parse only", "--correlation-id", "assign-1", "-o", "json")
	if err := json.Unmarshal([]byte(out), &call); err != nil || call.Status != "done" || call.Result.State != "assigned" {
		t.Fatalf("task assign: %v\n%s", err, out)
	}
	id := call.Result.ID
	again := c.ok("task", "assign", "--as", "work/core/lead", "--to", "work/core/deputy", "--title", "port the parser",
		"--brief", "make it total", "--bound", "internal/parse only", "--correlation-id", "assign-1")
	wantContains(t, "retry", again, "task "+id+" (work/core): port the parser", "bound     internal/parse only")
	wantContains(t, "list", c.ok("task", "list", "--as", "work/core/deputy"), id, "assigned", "work/core/lead", "port the parser")
	wantContains(t, "report", c.ok("task", "report", id, "--as", "work/core/deputy", "--progress", "parser ported",
		"--evidence", "run r-1", "--state", "done"), "state     done", "parser ported [done]", "evidence: run r-1")
	wantContains(t, "show", c.ok("task", "show", id, "--as", "human:henry", "--persona", "work/core/deputy"), "parser ported")
	wantContains(t, "by me", c.ok("task", "list", "--as", "work/core/lead", "--by-me", "--state", "done"), id)
	if got := c.ok("task", "list", "--as", "work/core/lead"); strings.Contains(got, id) {
		t.Errorf("the lead's own tasks list the deputy's: %s", got)
	}

	// The lead takes a task over (the deputy's seat is told), then cancels
	// it, each with the reason; its reports stay.
	out = c.ok("task", "assign", "--as", "work/core/lead", "--to", "work/core/deputy", "--title", "write the docs",
		"--brief", "b", "-o", "json")
	if err := json.Unmarshal([]byte(out), &call); err != nil {
		t.Fatal(err)
	}
	wantContains(t, "reassign", c.ok("task", "reassign", call.Result.ID, "--as", "work/core/lead", "--to", "work/core/lead",
		"--reason", "I finish it"), "state     assigned", "reassigned from work/core/deputy to work/core/lead: I finish it")
	wantContains(t, "cancel", c.ok("task", "cancel", call.Result.ID, "--as", "work/core/lead", "--reason", "not needed"),
		"state     cancelled", "cancelled: not needed")
	wantContains(t, "cancel twice", c.fails("task", "cancel", call.Result.ID, "--as", "work/core/lead", "--reason", "again"),
		"the task is finished")

	out, _, code := c.run("task", "assign", "--as", "work/core/deputy", "--to", "work/core/lead", "--title", "t", "--brief", "b")
	if code != exitDeny || !strings.Contains(out, "not-exposed") {
		t.Errorf("a deputy assigning: exit %d %q", code, out)
	}
	_, errOut, code := c.run("task", "assign", "--as", "work/core/lead", "--to", "work/core/deputy", "--title", "a\x1b[2Jb", "--brief", "b")
	if code != 1 || !strings.Contains(errOut, "invalid tool arguments") || strings.Contains(errOut, "\x1b") {
		t.Errorf("hostile title: exit %d %q", code, errOut)
	}
	wantContains(t, "unknown task", c.fails("task", "show", "t-0000000000000000", "--as", "work/core/deputy"), "no such task")
	wantContains(t, "audit", c.ok("audit"), "tool-call")
}
