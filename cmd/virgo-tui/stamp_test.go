package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stampedHome registers a secretary and a deputy (persona add writes each
// generation's stamp) and activates both; it returns the deputy's stamp file.
func stampedHome(t *testing.T) (*cli, string) {
	c := newCLI(t)
	c.activate("--scope", "root", "--role", "secretary", "--name", "Spica", "--human", "human:henry", "--surface", "virgo-channel=human:henry")
	r := c.activate("--scope", "work", "--project", "core", "--role", "deputy", "--name", "Porrima", "--human", "human:henry")
	return c, filepath.Join(c.home, "personas", r.Persona["id"].(string), "CAPABILITY-STAMP.json")
}

func TestPersonaAddWritesTheStampOnceAndRecordsTheHash(t *testing.T) {
	c, path := stampedHome(t)
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("stamp %s: %v %v", path, fi, err)
	}
	hash := strings.TrimSpace(c.ok("stamp", "hash", path))
	wantContains(t, "persona show", c.ok("persona", "show", "Porrima", "-o", "json"), `"stamp_hash": "`+hash+`"`)
	_, errOut, code := c.run("stamp", "build", "work/core/deputy")
	if code == 0 || !strings.Contains(errOut, "capability stamp already exists") || !strings.Contains(errOut, hash) {
		t.Fatalf("second build: exit %d, %s", code, errOut)
	}
	out := c.ok("stamp", "show", "work/core/deputy")
	wantContains(t, "show", out, "work/core/deputy (coder-deputy, schema v3)", "owning lead work/core/lead", "publish_deployment_v1")
	wantContains(t, "secretary surfaces", c.ok("stamp", "show", "Spica", "-o", "json"), `"target": "human:henry"`)
	// A changed byte in the written file is refused on load.
	b, _ := os.ReadFile(path)
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), `"confirm"`, `"allow"`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = c.run("stamp", "show", "work/core/deputy")
	if code == 0 || !strings.Contains(errOut, "hash mismatch") {
		t.Fatalf("tampered stamp shown: exit %d, %s", code, errOut)
	}
}

func TestStampDiffAgainstThePreviousGeneration(t *testing.T) {
	c, _ := stampedHome(t)
	// A new seat: everything is added, in the activation's detail.
	r := c.add("--scope", "work", "--project", "core", "--role", "lead", "--name", "Heze", "--human", "human:henry")
	wantContains(t, "first lead", r.Confirmation.Detail, "nothing -> work/core/lead", "gains task assignment")
	wantContains(t, "first lead dry run", c.ok("stamp", "build", "work/core/lead", "--dry-run"), "nothing -> work/core/lead")
	// A second generation of the deputy seat: the same class, no change.
	out := c.ok("persona", "retire", "Porrima", "--reason", "test")
	c.ok("confirm", "approve", strings.Fields(out[strings.Index(out, "confirm approve ")+len("confirm approve "):])[0], "--as", "human:henry")
	r = c.add("--scope", "work", "--project", "core", "--role", "deputy", "--name", "Zaniah", "--human", "human:henry")
	wantContains(t, "second deputy", r.Confirmation.Detail, "work/core/deputy -> work/core/deputy", "no change: both carry the same tools")
	// The same tools with a wider workspace: the review shows the binding.
	wantContains(t, "second deputy dry run", c.ok("stamp", "build", "Zaniah", "--dry-run", "--mutable", "worktree/**"),
		"persona      Zaniah, generation 2", "work/core/deputy -> work/core/deputy", "bindings:",
		"workspace.mutable_paths: QUEUE.md, DECISIONS.md, FINDINGS.md, memory/** -> QUEUE.md, DECISIONS.md, FINDINGS.md, memory/**, worktree/**")
}

func TestStampBuildRefusesAnUnregisteredAddress(t *testing.T) {
	c := newCLI(t)
	_, errOut, code := c.run("stamp", "build", "work/core/lead", "--dry-run")
	if code == 0 || !strings.Contains(errOut, "no holder") && !strings.Contains(errOut, "no persona") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

func TestStampValidateListsEveryProblem(t *testing.T) {
	c, path := stampedHome(t)
	b, _ := os.ReadFile(path)
	bad := strings.Replace(string(b), `"confirm"`, `"allow"`, 1)
	bad = strings.Replace(bad, `"memory/**"`, `"../memory/**"`, 1)
	badPath := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(badPath, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, code := c.run("stamp", "validate", path, badPath)
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	wantContains(t, "validate", out, path+": ok (v3 work/core/deputy",
		badPath+": refused, 2 problem(s)",
		"tool-access tools[27].access [publish_deployment_v1]",
		"mutable-path-escape workspace.mutable_paths[3]")
}

func TestStampProjectDiffMatrixSchema(t *testing.T) {
	c, path := stampedHome(t)
	wantContains(t, "project", c.ok("stamp", "project", path),
		"equality: ok: 28 tools in all three projections", "boot: ok")
	var p struct {
		Launcher []string
		Equal    bool
	}
	if err := json.Unmarshal([]byte(c.ok("stamp", "project", path, "--consumer", "launcher", "-o", "json")), &p); err != nil {
		t.Fatal(err)
	}
	if !p.Equal || len(p.Launcher) != 28 {
		t.Errorf("launcher projection %+v", p)
	}
	wantContains(t, "diff", c.ok("stamp", "diff", "work/core/deputy", "secretary"),
		"work/core/deputy -> secretary", "gains human-surface messaging", "gains task assignment")
	wantContains(t, "diff nothing", c.ok("stamp", "diff", "nothing", "Spica"), "nothing -> root/secretary", "+ send_human_message")
	wantContains(t, "matrix", c.ok("stamp", "matrix"),
		"runs and artifacts                    R                   R                   R/W           R/W (assigned task)")
	wantContains(t, "dossier", c.ok("stamp", "dossier", "coder-deputy"), "explicitly not granted:", "resolve_decision")
	var schema map[string]any
	if err := json.Unmarshal([]byte(c.ok("stamp", "schema")), &schema); err != nil || schema["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("schema: %v %v", err, schema["$schema"])
	}
}
