package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// staleIDs are the ids of the stale choices review prints (first column).
func staleIDs(out string) []string {
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		ids = append(ids, strings.Fields(line)[0])
	}
	return ids
}

// Carrying forward and dropping go through the hub, so they work while a
// hub runs (before, they opened the database and failed with "locked").
func TestPromptsReviewBesideARunningHub(t *testing.T) {
	c := confirmSetup(t)
	for i, target := range []string{"external:https://example.org/a", "external:https://example.org/b"} {
		out, _, _ := c.run("confirm", "request", "--as", "work/core/lead", "--persona", "work/core/lead", "--tool", "publish_deployment_v1",
			"--target", target, "--shape", "deploy", "--correlation-id", "learn-"+string(rune('a'+i)), "-o", "json")
		var res struct{ Confirmation struct{ ID string } }
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatal(err)
		}
		c.ok("confirm", "approve", res.Confirmation.ID, "--as", "human:henry", "--remember")
	}
	out := c.ok("persona", "retire", "work/core/lead", "--reason", "regranting", "--as", "human:henry")
	c.ok("confirm", "approve", strings.Fields(out[strings.Index(out, "confirm approve ")+len("confirm approve "):])[0], "--as", "human:henry")
	c.activate("--scope", "work", "--project", "core", "--role", "lead", "--name", "Spica", "--human", "human:henry")

	serveHub(t, c)
	ids := staleIDs(c.ok("prompts", "review", "--persona", "work/core/lead"))
	if len(ids) != 2 {
		t.Fatalf("%d stale choices after the regrant, want 2", len(ids))
	}
	wantContains(t, "a persona reviews", c.fails("prompts", "review", "--persona", "work/core/lead", "--as", "work/core/lead",
		"--drop", ids[0]), "only a human")
	wantContains(t, "unknown id", c.fails("prompts", "review", "--persona", "work/core/lead", "--as", "human:henry",
		"--drop", "nope"), "no such learned choice")
	out = c.ok("prompts", "review", "--persona", "work/core/lead", "--as", "human:henry", "--carry-forward", ids[0], "--drop", ids[1])
	if left := staleIDs(out); len(left) != 0 {
		t.Fatalf("still stale after the review: %v\n%s", left, out)
	}
	wantContains(t, "carried forward", c.ok("prompts", "list", "--persona", "work/core/lead"), "allow", "human:henry")
	wantContains(t, "audit", c.ok("audit"), "prompt-carried-forward", "prompt-dropped")
}
