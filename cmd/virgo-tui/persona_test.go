package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
)

// cli runs the real cobra command tree in-process against one home, the
// way main does: errors go to stderr with the exit status main would use.
type cli struct {
	t    *testing.T
	home string
}

func newCLI(t *testing.T) *cli { return &cli{t: t, home: t.TempDir()} }

func (c *cli) run(args ...string) (stdout, stderr string, code int) {
	c.t.Helper()
	var out, errb bytes.Buffer
	root := newRootCmd()
	root.SetArgs(append([]string{"--home", c.home}, args...))
	root.SetIn(strings.NewReader(""))
	root.SetOut(&out)
	root.SetErr(&errb)
	if err := root.Execute(); err != nil {
		fmt.Fprintln(&errb, "virgo-tui:", err)
		return out.String(), errb.String(), exitCode(err)
	}
	return out.String(), errb.String(), 0
}

// ok runs a command that must succeed and returns its stdout.
func (c *cli) ok(args ...string) string {
	c.t.Helper()
	out, errOut, code := c.run(args...)
	if code != 0 {
		c.t.Fatalf("%v: exit %d, stderr %s", args, code, errOut)
	}
	return out
}

// fails runs a command that must fail and returns its stderr.
func (c *cli) fails(args ...string) string {
	c.t.Helper()
	out, errOut, code := c.run(args...)
	if code == 0 {
		c.t.Fatalf("%v succeeded, want a non-zero exit; stdout %s", args, out)
	}
	if out != "" {
		c.t.Errorf("%v wrote to stdout on failure: %q", args, out)
	}
	return errOut
}

func wantContains(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s does not contain %q:\n%s", what, w, got)
		}
	}
}

// documentedPersonaKeys are the keys docs/json-output.md documents for a
// persona object; the JSON output must have exactly these.
var documentedPersonaKeys = []string{
	"activated_at", "address", "character_hash", "created_at", "generation", "human", "id", "name", "profile",
	"project", "refuse_reason", "refused_at", "repository", "retire_reason", "retired_at", "role", "scope",
	"session_lineage", "stamp_hash", "state",
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestPersonaCommandsTableAndJSON(t *testing.T) {
	c := newCLI(t)
	repo := t.TempDir()

	out := c.ok("persona", "add", "--scope", "root", "--role", "secretary", "--name", "Spica", "--human", "human:ada")
	wantContains(t, "add output", out, "name             Spica", "address          root/secretary", "profile          secretary",
		"generation       1", "state            active", "human            human:ada")

	out = c.ok("persona", "add", "--scope", "work", "--project", "core", "--role", "lead", "--name", "Porrima",
		"--repo", repo, "--session", "ses-abc", "--character", "sha256:c0ffee", "-o", "json")
	var added map[string]any
	if err := json.Unmarshal([]byte(out), &added); err != nil {
		t.Fatalf("add -o json: %v\n%s", err, out)
	}
	if !slices.Equal(keys(added), documentedPersonaKeys) {
		t.Errorf("persona JSON keys = %v, want the documented %v", keys(added), documentedPersonaKeys)
	}
	for k, want := range map[string]any{"address": "work/core/lead", "scope": "work", "project": "core", "role": "lead",
		"profile": "project-lead", "generation": 1.0, "repository": repo, "session_lineage": "ses-abc",
		"character_hash": "sha256:c0ffee", "state": "active", "retired_at": nil} {
		if added[k] != want {
			t.Errorf("add json %s = %v, want %v", k, added[k], want)
		}
	}
	if s, _ := added["created_at"].(string); !strings.HasSuffix(s, "Z") {
		t.Errorf("created_at %q is not RFC 3339 UTC", s)
	}

	errOut := c.fails("persona", "add", "--scope", "work", "--project", "core", "--role", "lead", "--name", "Vindemiatrix")
	wantContains(t, "seat taken", errOut, "work/core/lead is held by Porrima (generation 1); retire it first")
	errOut = c.fails("persona", "add", "--scope", "home", "--role", "secretary", "--name", "SPICA")
	wantContains(t, "name taken", errOut, `"SPICA" belongs to Spica`, "names are for life")
	errOut = c.fails("persona", "add", "--scope", "work", "--role", "lead", "--name", "Auva")
	wantContains(t, "bad address", errOut, `work/lead: role "lead" is project-bound; use work/<project>/lead`)

	out = c.ok("persona", "list")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "ADDRESS") || !strings.HasPrefix(lines[1], "root/secretary") ||
		!strings.HasPrefix(lines[2], "work/core/lead") {
		t.Errorf("list table:\n%s", out)
	}
	wantContains(t, "bad -o", c.fails("persona", "list", "-o", "yaml"), `unknown output format "yaml": use table or json`)

	wantContains(t, "retire without reason", c.fails("persona", "retire", "work/core/lead"), `"reason" not set`)
	out = c.ok("persona", "retire", "work/core/lead", "--reason", "context exhausted")
	wantContains(t, "retire", out, "retired Porrima (work/core/lead, generation 1): context exhausted")
	c.ok("persona", "add", "--scope", "work", "--project", "core", "--role", "lead", "--name", "Zavijava")

	var list []map[string]any
	if err := json.Unmarshal([]byte(c.ok("persona", "list", "-o", "json")), &list); err != nil || len(list) != 2 {
		t.Fatalf("list -o json = %v, %v; want 2 personas", list, err)
	}
	if err := json.Unmarshal([]byte(c.ok("persona", "list", "--all", "-o", "json")), &list); err != nil || len(list) != 3 {
		t.Fatalf("list --all -o json = %v, %v; want 3 personas", list, err)
	}
	if list[1]["name"] != "Porrima" || list[1]["state"] != "retired" || list[1]["retire_reason"] != "context exhausted" ||
		list[2]["name"] != "Zavijava" || list[2]["generation"] != 2.0 {
		t.Errorf("list --all order or fields: %v", list)
	}

	out = c.ok("persona", "show", "work/core/lead")
	wantContains(t, "show", out, "name             Zavijava", "generation       2", "seat work/core/lead history:",
		"1    Porrima   retired", "2    Zavijava  active")
	var view struct {
		Persona map[string]any   `json:"persona"`
		History []map[string]any `json:"history"`
	}
	if err := json.Unmarshal([]byte(c.ok("persona", "show", "porrima", "-o", "json")), &view); err != nil {
		t.Fatal(err)
	}
	if view.Persona["name"] != "Porrima" || len(view.History) != 2 || view.History[1]["name"] != "Zavijava" {
		t.Errorf("show porrima -o json = %+v", view)
	}
	wantContains(t, "show unknown", c.fails("persona", "show", "Nobody"), `no persona is named "Nobody"`)
}

func TestPersonaShowFreeSeat(t *testing.T) {
	c := newCLI(t)
	c.ok("persona", "add", "--scope", "work", "--project", "core", "--role", "deputy", "--name", "Heze")
	c.ok("persona", "retire", "Heze", "--reason", "done")
	out := c.ok("persona", "show", "work/core/deputy")
	wantContains(t, "show of a free seat", out, "name             Heze", "state            retired", "retire reason    done")
}

func TestPersonaAddNeedsFlags(t *testing.T) {
	c := newCLI(t)
	errOut := c.fails("persona", "add")
	wantContains(t, "bare add", errOut, "persona add needs --scope, --role, --name",
		`the first persona is usually root/secretary, e.g. persona add --scope root --role secretary --name "Spica"`)
	errOut = c.fails("persona", "add", "--scope", "work", "--role", "coordinator")
	wantContains(t, "missing name", errOut, "persona add needs --name", `--scope work --role coordinator --name "Spica"`)
	wantContains(t, "bad repo", c.fails("persona", "add", "--scope", "work", "--role", "coordinator", "--name", "Kang",
		"--repo", "/does/not/exist"), "repository is not an existing directory")
	wantContains(t, "bad human", c.fails("persona", "add", "--scope", "work", "--role", "coordinator", "--name", "Kang",
		"--human", "human:two words"), "invalid human authority")
}

func TestPersonaNames(t *testing.T) {
	c := newCLI(t)
	c.ok("persona", "add", "--scope", "root", "--role", "secretary", "--name", "Spica")
	if out := c.ok("persona", "names", "--count", "3"); out != "Porrima\nVindemiatrix\nZavijava\n" {
		t.Errorf("names --count 3 = %q", out)
	}
	var names []string
	if err := json.Unmarshal([]byte(c.ok("persona", "names", "-n", "1", "-o", "json")), &names); err != nil ||
		!slices.Equal(names, []string{"Porrima"}) {
		t.Errorf("names -o json = %v, %v", names, err)
	}
	wantContains(t, "names --count 0", c.fails("persona", "names", "--count", "0"), "count must be at least 1")
}

func TestAddressCheck(t *testing.T) {
	c := newCLI(t)
	out := c.ok("address", "check", "work/core/deputy")
	want := "address  work/core/deputy\nscope    work\nproject  core\nrole     deputy\narity    project-bound\nprofile  coder-deputy\n"
	if out != want {
		t.Errorf("address check table:\n%s\nwant:\n%s", out, want)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(c.ok("address", "check", "root/operator", "-o", "json")), &v); err != nil {
		t.Fatal(err)
	}
	if v["project"] != "" || v["arity"] != "root only" || v["profile"] != "project-lead" {
		t.Errorf("address check -o json = %v", v)
	}
	errOut := c.fails("address", "check", "work/lead")
	wantContains(t, "refusal", errOut, `work/lead: role "lead" is project-bound; use work/<project>/lead [rule project-bound-role]`)
}

// The store is opened per command and closed after it: a second command
// reads what the first committed (the listing above relies on it too), and
// completion offers registered addresses and names.
func TestCompletionOffersRefs(t *testing.T) {
	c := newCLI(t)
	c.ok("persona", "add", "--scope", "work", "--project", "core", "--role", "lead", "--name", "Rijl al Awwa")
	out := c.ok("__complete", "persona", "show", "")
	wantContains(t, "completion", out, "work/core/lead\n", "Rijl al Awwa\n")
	out = c.ok("__complete", "persona", "add", "--scope", "root", "--role", "")
	wantContains(t, "role completion", out, "secretary\t", "operator\t")
	if strings.Contains(out, "lead\t") {
		t.Errorf("root offered project roles:\n%s", out)
	}
}
