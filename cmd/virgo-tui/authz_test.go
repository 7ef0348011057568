package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// request runs confirm request as the persona itself and returns the
// confirmation id and the exit status.
func (c *cli) request(persona, tool, target, shape, corr string) (string, int) {
	c.t.Helper()
	out, errOut, code := c.run("confirm", "request", "--as", persona, "--persona", persona, "--tool", tool,
		"--target", target, "--shape", shape, "--correlation-id", corr, "-o", "json")
	var res struct{ Confirmation struct{ ID string } }
	if code != exitConfirm && code != 0 && code != exitDeny {
		c.t.Fatalf("confirm request %s %s: exit %d: %s", tool, target, code, errOut)
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		c.t.Fatalf("confirm request -o json: %v\n%s", err, out)
	}
	return res.Confirmation.ID, code
}

// End to end: a secretary's resolve_decision relays one
// explicit decision of its bound human (footnote ¹), so approve --remember
// is refused with the reason and leaves the confirmation pending; a plain
// approval decides this one resolution only, and the next asks again.
func TestFootnoteRelaysAreNeverRememberedThroughTheCLI(t *testing.T) {
	c := newCLI(t)
	c.activate("--scope", "root", "--role", "secretary", "--name", "Spica", "--human", "human:henry")
	resolve := []string{"root/secretary", "resolve_decision", "decision:work/core/d-1", "record:write"}
	id, code := c.request(resolve[0], resolve[1], resolve[2], resolve[3], "r-1")
	if code != exitConfirm || id == "" {
		t.Fatalf("resolve_decision: exit %d, confirmation %q", code, id)
	}
	for _, flags := range [][]string{{"--remember"}, {"--remember", "--class"}} {
		errOut := c.fails(append([]string{"confirm", "approve", id, "--as", "human:henry"}, flags...)...)
		wantContains(t, "approve "+strings.Join(flags, " "), errOut, "cannot be remembered", "footnote 1", "each resolution needs its own decision")
	}
	wantContains(t, "still pending", c.ok("confirm", "list"), id)
	wantContains(t, "approve", c.ok("confirm", "approve", id, "--as", "human:henry"), "approved "+id)
	if out := c.ok("prompts", "list"); strings.Contains(out, "decision.resolve") {
		t.Fatalf("a relay was remembered:\n%s", out)
	}
	next, code := c.request(resolve[0], resolve[1], resolve[2], resolve[3], "r-2")
	if code != exitConfirm || next == id {
		t.Fatalf("the next resolution: exit %d, confirmation %q (first %s); want a new confirmation", code, next, id)
	}
	out, _, code := c.run("authorize", "--persona", "root/secretary", "--tool", "resolve_decision",
		"--target", "decision:work/core/d-1", "--shape", "record:write")
	if code != exitConfirm || !strings.Contains(out, "relayed-resolution") {
		t.Fatalf("authorize after an approval: exit %d\n%s", code, out)
	}
}

// End to end: approve --remember --class stores the rule
// under the class key and prints it; another persona of the class with the
// same capabilities is then allowed the exact operation (authorize exits 0
// with the remembered approval), while a persona of another class, or the
// same operation on another target, is still asked.
func TestClassOverlayIsSharedThroughTheCLI(t *testing.T) {
	c := newCLI(t)
	c.activate("--scope", "root", "--role", "secretary", "--name", "Spica", "--human", "human:henry")
	c.activate("--scope", "home", "--role", "secretary", "--name", "Heze", "--human", "human:henry")
	c.activate("--scope", "work", "--project", "core", "--role", "lead", "--name", "Porrima", "--human", "human:henry")
	publish := func(persona, target string) (string, int) {
		out, _, code := c.run("authorize", "--persona", persona, "--tool", "publish_deployment_v1",
			"--target", target, "--shape", "publish:external")
		return out, code
	}
	id, code := c.request("root/secretary", "publish_deployment_v1", "external:https://example.org/notes", "publish:external", "p-1")
	if code != exitConfirm {
		t.Fatalf("publish: exit %d", code)
	}
	out := c.ok("confirm", "approve", id, "--remember", "--class", "--as", "human:henry")
	wantContains(t, "approve --remember --class", out, "remembered: class secretary (class key sha256:",
		"deployment.publish.v1 publish:external on external:https://example.org/notes")
	if out, code := publish("home/secretary", "external:https://example.org/notes"); code != 0 || !strings.Contains(out, "remembered approval by human:henry") {
		t.Fatalf("another secretary: exit %d\n%s", code, out)
	}
	if out, code := publish("work/core/lead", "external:https://example.org/notes"); code != exitConfirm {
		t.Fatalf("a lead (another class): exit %d\n%s", code, out)
	}
	if out, code := publish("home/secretary", "external:https://example.org/other"); code != exitConfirm {
		t.Fatalf("another target: exit %d\n%s", code, out)
	}
	var choices []struct {
		Where string
		Key   struct {
			StampHash string `json:"stamp_hash"`
			ClassKey  string `json:"class_key"`
		}
	}
	if err := json.Unmarshal([]byte(c.ok("prompts", "list", "-o", "json")), &choices); err != nil || len(choices) != 1 ||
		choices[0].Where != "class" || choices[0].Key.StampHash != "" || !strings.HasPrefix(choices[0].Key.ClassKey, "sha256:") {
		t.Fatalf("stored choices: %+v, %v", choices, err)
	}
}

// End to end: a human-surface binding is virgo-channel to a
// human principal; persona add refuses anything else by the named rule,
// before anything is sent, and never prints the value (it may be a secret).
func TestSurfaceBindingsAreGrammarThroughTheCLI(t *testing.T) {
	c := newCLI(t)
	for _, bad := range []string{"m365=tenant:abc;client_secret=s3cr3t-value", "teams=chat:henry", "virgo-channel=s3cr3t-value", "s3cr3t-value"} {
		errOut := c.fails("persona", "add", "--scope", "root", "--role", "secretary", "--name", "Spica", "--human", "human:henry",
			"--surface", bad)
		wantContains(t, "--surface "+bad, errOut, "surface-binding-grammar", "virgo-channel=human:<name>")
		if strings.Contains(errOut, "s3cr3t") || strings.Contains(errOut, "tenant:abc") {
			t.Errorf("the refusal repeats the binding:\n%s", errOut)
		}
	}
	if out := c.ok("persona", "list"); strings.Contains(out, "Spica") {
		t.Fatalf("a refused binding registered the persona:\n%s", out)
	}
	c.activate("--scope", "root", "--role", "secretary", "--name", "Spica", "--human", "human:henry", "--surface", "virgo-channel=human:henry")
}

// The reproductions through the CLI: a read-only
// tool never authorizes a mutating shape.
func TestToolKindDecidesShapesThroughTheCLI(t *testing.T) {
	c := newCLI(t)
	c.activate("--scope", "root", "--role", "secretary", "--name", "Spica", "--human", "human:henry")
	for _, args := range [][]string{
		{"get_run", "run:work/core/t-1/r-1", "record:write"},
		{"workspace_read", "path:memory/notes.md", "write:overwrite"},
		{"workspace_stat", "path:memory/notes.md", "write:overwrite"},
		{"list_decisions", "decision:work/core/d-1", "record:write"},
		{"list_reaction_ids", "surface:virgo-channel/human:henry", "record:write"},
	} {
		out, errOut, code := c.run("authorize", "--persona", "root/secretary", "--tool", args[0], "--target", args[1], "--shape", args[2])
		if code != exitDeny || !strings.Contains(out, "deny [shape-not-carried-by-tool]") {
			t.Errorf("authorize %v: exit %d, %q (stderr %q); want deny [shape-not-carried-by-tool]", args, code, out, errOut)
		}
	}
}
