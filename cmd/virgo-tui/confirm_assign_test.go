package main

import (
	"encoding/json"
	"testing"
)

// The owning lead records the deputy's assigned task; a run inside it is
// allowed, one outside goes to the lead; the deputy cannot assign itself.
func TestConfirmAssignDecidesDeputyScope(t *testing.T) {
	c := confirmSetup(t)
	run := func(target string) []string {
		return []string{"authorize", "--as", "work/core/deputy", "--persona", "work/core/deputy", "--tool", "get_run",
			"--target", target, "--shape", "read:meta"}
	}
	wantContains(t, "self", c.fails("confirm", "assign", "--as", "work/core/deputy", "--persona", "work/core/deputy",
		"--task", "work/core/t-1"), "a persona cannot assign itself a task")
	wantContains(t, "other project", c.fails("confirm", "assign", "--as", "work/core/lead", "--persona", "work/core/deputy",
		"--task", "work/web/t-1"), "outside the deputy's project")
	wantContains(t, "assign", c.ok("confirm", "assign", "--as", "work/core/lead", "--persona", "work/core/deputy",
		"--task", "work/core/t-1"), "task work/core/t-1 assigned to work/core/deputy (generation 1) by work/core/lead")
	wantContains(t, "inside", c.ok(run("run:work/core/t-1/r-1")...), "allow")
	out, _, code := c.run(append(run("run:work/core/t-9/r-1"), "-o", "json")...)
	var got struct{ Route string }
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != exitConfirm || got.Route != "owning-lead" {
		t.Fatalf("outside the assigned task: exit %d route %q (%v)\n%s", code, got.Route, err, out)
	}
	wantContains(t, "list", c.ok("confirm", "assignments", "--persona", "Zaniah"), "work/core/t-1", "work/core/lead")
	wantContains(t, "remove", c.ok("confirm", "assign", "--as", "human:henry", "--persona", "work/core/deputy",
		"--task", "work/core/t-1", "--remove"), "no longer assigned")
	if _, _, code := c.run(run("run:work/core/t-1/r-1")...); code != exitConfirm {
		t.Fatalf("after removal: exit %d, want %d", code, exitConfirm)
	}
	wantContains(t, "audit", c.ok("audit"), "task-assigned", "task-unassigned")
}
