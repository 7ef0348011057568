package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// confirmSetup registers a lead and its deputy, both bound to henry, and
// has henry approve their activations.
func confirmSetup(t *testing.T) *cli {
	c := newCLI(t)
	c.activate("--scope", "work", "--project", "core", "--role", "lead", "--name", "Porrima", "--human", "human:henry")
	c.activate("--scope", "work", "--project", "core", "--role", "deputy", "--name", "Zaniah", "--human", "human:henry")
	return c
}

func TestAuthorizeExitCodes(t *testing.T) {
	c := confirmSetup(t)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--tool", "workspace_write", "--target", "path:memory/today.md", "--shape", "write:create"}, 0, "allow"},
		{[]string{"--tool", "publish_deployment_v1", "--target", "external:https://example.org/r", "--shape", "deploy"}, exitConfirm,
			"confirm [external-publication-or-deployment]"},
		{[]string{"--tool", "workspace_read", "--target", "path:.env", "--shape", "read:range"}, exitDeny, "deny [secret-credential-values]"},
		{[]string{"--tool", "workspace_write", "--target", "path:../lead/QUEUE.md", "--shape", "write:create"}, exitDeny,
			"deny [cross-workspace-project-persona]"},
		{[]string{"--tool", "assign_task", "--target", "task:work/core/t-1", "--shape", "record:write"}, exitDeny, "deny [not-exposed]"},
	}
	for _, tc := range cases {
		out, errOut, code := c.run(append([]string{"authorize", "--persona", "work/core/deputy"}, tc.args...)...)
		if code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("authorize %v: exit %d, %q (stderr %q); want exit %d and %q", tc.args, code, out, errOut, tc.code, tc.want)
		}
	}
	// "a malformed target is a 400 error with exit 1, not a deny".
	out, errOut, code := c.run("authorize", "--persona", "work/core/deputy", "--tool", "workspace_read", "--target", "bogus:x", "--shape", "read:range")
	if code != 1 || out != "" || !strings.Contains(errOut, "bogus") {
		t.Errorf("malformed target: exit %d, stdout %q, stderr %q; want exit 1 and the refusal", code, out, errOut)
	}
	// the JSON is the hub's answer: the operation as the hub normalized it,
	// the decision, its route and the stamp it was made under
	out, _, code = c.run("authorize", "--persona", "work/core/deputy", "--tool", "get_run", "--target", "run:work/core/t-9/r-1",
		"--shape", "read:meta", "-o", "json")
	var got struct {
		Operation struct {
			Persona, Tool string
			Target        struct{ Kind, Scope, Project, Task, Value string }
		}
		Decision  struct{ Verdict, Boundary string }
		Route     string
		StampHash string `json:"stamp_hash"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != exitConfirm || got.Decision.Boundary != "deputy-scope" || got.Route != "owning-lead" ||
		got.Operation.Target.Kind != "run" || got.Operation.Target.Task != "t-9" || got.Operation.Target.Value != "r-1" ||
		got.Operation.Persona != "work/core/deputy" || !strings.HasPrefix(got.StampHash, "sha256:") {
		t.Fatalf("deputy scope json: exit %d, %+v, %v\n%s", code, got, err, out)
	}
}

func TestConfirmRequestApproveAudit(t *testing.T) {
	c := confirmSetup(t)
	req := []string{"confirm", "request", "--as", "work/core/deputy", "--persona", "work/core/deputy", "--tool", "get_run",
		"--target", "run:work/core/t-9/r-1", "--shape", "read:meta", "--correlation-id", "q-1"}
	out, _, code := c.run(append(req, "-o", "json")...)
	var res struct {
		Status       string
		Confirmation struct{ ID, Authority string }
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != exitConfirm || res.Status != "unknown" || res.Confirmation.Authority != "work/core/lead" {
		t.Fatalf("request: exit %d, %+v, %v\n%s", code, res, err, out)
	}
	id := res.Confirmation.ID
	wantContains(t, "list", c.ok("confirm", "list"), id, "deputy-scope", "work/core/lead")
	wantContains(t, "self decision", c.fails("confirm", "approve", id, "--as", "work/core/deputy"), "nobody decides their own request")
	wantContains(t, "wrong authority", c.fails("confirm", "approve", id, "--as", "human:henry"), "only the routed authority decides")
	wantContains(t, "approve", c.ok("confirm", "approve", id, "--as", "work/core/lead"), "approved "+id, "decision committed")
	wantContains(t, "second decision", c.fails("confirm", "deny", id, "--as", "work/core/lead", "--reason", "late"), "already decided")
	out, _, code = c.run(req...)
	if code != 0 || !strings.HasPrefix(out, "allowed: approved by work/core/lead") {
		t.Fatalf("retry: exit %d\n%s", code, out)
	}
	wantContains(t, "audit", c.ok("audit"), "requested", "approved", id)
	wantContains(t, "show", c.ok("confirm", "show", id), "decision", "approved by work/core/lead")
	if out := c.ok("confirm", "list"); strings.Contains(out, id) {
		t.Fatalf("decided confirmation still listed as pending:\n%s", out)
	}
}

func TestConfirmDenyRememberAndPrompts(t *testing.T) {
	c := confirmSetup(t)
	req := []string{"confirm", "request", "--as", "work/core/lead", "--persona", "work/core/lead", "--tool", "publish_deployment_v1",
		"--target", "external:https://example.org/r", "--shape", "deploy"}
	out, _, _ := c.run(append(req, "--correlation-id", "d-1", "-o", "json")...)
	var res struct{ Confirmation struct{ ID string } }
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	wantContains(t, "model deciding", c.fails("confirm", "approve", res.Confirmation.ID, "--as", "work/core/deputy"), "cannot decide a global-boundary")
	t.Setenv("VIRGO_PRINCIPAL", "human:henry")
	c.ok("confirm", "deny", res.Confirmation.ID, "--reason", "never there", "--remember")
	out, _, code := c.run(append(req, "--correlation-id", "d-2")...)
	if code != exitDeny || !strings.Contains(out, "remembered-denial") {
		t.Fatalf("remembered denial asked again: exit %d\n%s", code, out)
	}
	wantContains(t, "prompts list", c.ok("prompts", "list", "--persona", "work/core/lead"), "deny", "deployment.publish.v1", "external:https://example.org/r")
	if out := c.ok("prompts", "review", "--persona", "work/core/lead"); strings.Count(out, "\n") != 1 {
		t.Fatalf("nothing should be stale yet:\n%s", out)
	}
}

// A retirement approved by the bound human retires the persona, and the
// retired generation's token stops working at once: its seat file goes,
// and the token itself, named by file, is refused.
func TestConfirmedRetirementRetires(t *testing.T) {
	c := confirmSetup(t)
	token := personaTokenFile(t, c, "work/core/deputy")
	out := c.ok("persona", "retire", "work/core/deputy", "--reason", "task done", "--as", "human:henry")
	wantContains(t, "queued", out, "queued for human:henry", "you are the bound human")
	id := strings.Fields(out[strings.Index(out, "confirm approve ")+len("confirm approve "):])[0]
	wantContains(t, "show", c.ok("confirm", "show", id), "destructive-or-irreversible", "asked by human:henry: task done")
	c.ok("confirm", "request", "--as", "work/core/deputy", "--persona", "work/core/deputy", "--tool", "workspace_read",
		"--target", "path:memory/notes.md", "--shape", "read:range", "--correlation-id", "before")
	wantContains(t, "approve", c.ok("confirm", "approve", id, "--as", "human:henry"), "approved "+id)
	wantContains(t, "persona list", c.ok("persona", "list", "--all"), "Zaniah", "retired")
	wantContains(t, "retired acts", c.fails("confirm", "request", "--as", "work/core/deputy", "--persona", "work/core/deputy",
		"--tool", "workspace_read", "--target", "path:memory/notes.md", "--shape", "read:range", "--correlation-id", "after"),
		"acting as work/core/deputy: work/core/deputy: no active holder on this host")
	wantContains(t, "the retired generation's token", c.fails("confirm", "list", "--as", "work/core/deputy", "--token-file", token),
		"persona is retired", "was retired at", `(reason: "task done")`)
}

// confirm request --wait holds on the hub it asked (GET
// /v1/confirmations/{id}?wait=) until the authority's approve (another
// command, through the waiter's hub) is decided, and then reports the
// decision. It does not dial again while it waits: the token file it was
// given is gone once the request is queued, and the wait still ends in
// the decision.
func TestConfirmRequestWaitsForADecisionThroughItsHub(t *testing.T) {
	c := confirmSetup(t)
	type result struct {
		out  string
		code int
	}
	token, err := os.ReadFile(personaTokenFile(t, c, "work/core/lead"))
	if err != nil {
		t.Fatal(err)
	}
	once := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(once, token, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan result, 1)
	go func() {
		out, errOut, code := c.run("confirm", "request", "--as", "work/core/lead", "--token-file", once, "--persona", "work/core/lead",
			"--tool", "publish_deployment_v1", "--target", "external:https://example.org/r", "--shape", "deploy", "--correlation-id", "w-1",
			"--wait", "20s")
		done <- result{out + errOut, code}
	}()
	var id string
	for deadline := time.Now().Add(10 * time.Second); id == "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var list []struct{ ID string }
		out, _, code := c.run("confirm", "list", "-o", "json")
		if code == 0 && json.Unmarshal([]byte(out), &list) == nil && len(list) == 1 {
			id = list[0].ID
		}
	}
	if id == "" {
		r := <-done
		t.Fatalf("the waiting request's confirmation never showed up: exit %d %s", r.code, r.out)
	}
	if err := os.Remove(once); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond) // longer than any poll interval: a waiter that dials again fails here
	c.ok("confirm", "approve", id, "--as", "human:henry")
	r := <-done
	if r.code != 0 || !strings.HasPrefix(r.out, "allowed: approved by human:henry") {
		t.Fatalf("waiting request: exit %d\n%s", r.code, r.out)
	}
}
