package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
)

// cli runs the real cobra command tree in-process against one home, the
// way main does: errors go to stderr with the exit status main would use.
// Each command reaches the home through the hub: with none running, it
// starts one in this process on the home's socket and stops it at the end.
type cli struct {
	t    *testing.T
	home string
	// asEnrolled leaves enrolment to the test (see enrolActing).
	asEnrolled bool
}

// newCLI makes a home under a short temporary directory (a Unix socket
// path is at most 108 bytes) and acts as human:owner unless --as says
// otherwise.
func newCLI(t *testing.T) *cli {
	dir, err := os.MkdirTemp("", "vt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	t.Setenv("VIRGO_PRINCIPAL", "human:owner")
	return &cli{t: t, home: dir}
}

// registered is persona add -o json.
type registered struct {
	Persona      map[string]any `json:"persona"`
	StampHash    string         `json:"stamp_hash"`
	Confirmation struct {
		ID, Kind, State, Authority, Detail string
	} `json:"confirmation"`
}

// add runs persona add -o json and returns what was registered (pending).
func (c *cli) add(args ...string) registered {
	c.t.Helper()
	var r registered
	out := c.ok(append(append([]string{"persona", "add"}, args...), "-o", "json")...)
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		c.t.Fatalf("persona add -o json: %v\n%s", err, out)
	}
	return r
}

// activate registers a persona and approves its activation as its bound human.
func (c *cli) activate(args ...string) registered {
	c.t.Helper()
	r := c.add(args...)
	c.ok("confirm", "approve", r.Confirmation.ID, "--as", r.Persona["human"].(string))
	return r
}

func (c *cli) run(args ...string) (stdout, stderr string, code int) {
	c.t.Helper()
	c.enrolActing(args)
	var out, errb bytes.Buffer
	root := newRootCmd()
	root.SetArgs(append([]string{"--home", c.home}, args...))
	root.SetIn(strings.NewReader(""))
	code = execute(root, &out, &errb)
	return out.String(), errb.String(), code
}

// enrolActing enrols the human a command acts as (--as or
// $VIRGO_PRINCIPAL), as an existing operator would have with `operator add`,
// so that tests about other things can name any human. Tests of enrolment
// itself use a home of their own.
func (c *cli) enrolActing(args []string) {
	c.t.Helper()
	if c.asEnrolled {
		return
	}
	as := os.Getenv(hubclient.PrincipalEnv)
	for i, a := range args {
		if a == "--as" && i+1 < len(args) {
			as = args[i+1]
		}
	}
	if _, err := os.Stat(c.home); err != nil {
		return // a home the command itself makes (demo): its first human enrols at first install
	}
	name, ok := strings.CutPrefix(as, "human:")
	if !ok || !hubapi.ValidOperatorName(name) {
		return // a persona acts with its own token, no operator's
	}
	if _, err := hubapi.EnrolOperator(c.home, name, hubapi.NoUID); err != nil && !errors.Is(err, hubapi.ErrAlreadyEnrolled) {
		c.t.Fatal(err)
	}
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
	"activated_at", "address", "character_hash", "composition", "created_at", "generation", "human", "id", "name", "profile",
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
		"generation       1", "state            pending", "human            human:ada", "stamp hash       sha256:",
		"pending: Spica becomes active only when human:ada approves activation confirmation c-",
		"nothing -> root/secretary", "human:ada approves it with\n  virgo-tui confirm approve c-")

	added := c.add("--scope", "work", "--project", "core", "--role", "lead", "--name", "Porrima",
		"--repo", repo, "--session", "ses-abc", "--character", "sha256:c0ffee")
	if !slices.Equal(keys(added.Persona), documentedPersonaKeys) {
		t.Errorf("persona JSON keys = %v, want the documented %v", keys(added.Persona), documentedPersonaKeys)
	}
	for k, want := range map[string]any{"address": "work/core/lead", "scope": "work", "project": "core", "role": "lead",
		"profile": "project-lead", "generation": 1.0, "repository": repo, "session_lineage": "ses-abc",
		"character_hash": "sha256:c0ffee", "state": "pending", "activated_at": nil, "retired_at": nil, "human": "human:owner"} {
		if added.Persona[k] != want {
			t.Errorf("add json %s = %v, want %v", k, added.Persona[k], want)
		}
	}
	if s, _ := added.Persona["created_at"].(string); !strings.HasSuffix(s, "Z") {
		t.Errorf("created_at %q is not RFC 3339 UTC", s)
	}
	if added.StampHash == "" || added.Persona["stamp_hash"] != added.StampHash || added.Confirmation.Kind != "activation" ||
		added.Confirmation.State != "pending" || added.Confirmation.Authority != "human:owner" {
		t.Errorf("add json: stamp %q, confirmation %+v", added.StampHash, added.Confirmation)
	}

	errOut := c.fails("persona", "add", "--scope", "work", "--project", "core", "--role", "lead", "--name", "Vindemiatrix")
	wantContains(t, "seat taken while pending", errOut, "work/core/lead is held by Porrima (generation 1, pending confirmation)")
	wantContains(t, "approve", c.ok("confirm", "approve", added.Confirmation.ID), "approved "+added.Confirmation.ID)
	errOut = c.fails("persona", "add", "--scope", "work", "--project", "core", "--role", "lead", "--name", "Vindemiatrix")
	wantContains(t, "seat taken", errOut, "work/core/lead is held by Porrima (generation 1); retire it first")
	errOut = c.fails("persona", "add", "--scope", "home", "--role", "secretary", "--name", "SPICA")
	wantContains(t, "name taken", errOut, `"SPICA" belongs to Spica`, "names are for life")
	errOut = c.fails("persona", "add", "--scope", "work", "--role", "lead", "--name", "Auva")
	wantContains(t, "bad address", errOut, `work/lead: role "lead" is project-bound; use work/<project>/lead`)

	out = c.ok("persona", "list")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "ADDRESS") || !strings.HasPrefix(lines[1], "root/secretary") ||
		!strings.Contains(lines[1], "pending") || !strings.HasPrefix(lines[2], "work/core/lead") || !strings.Contains(lines[2], "active") {
		t.Errorf("list table:\n%s", out)
	}
	wantContains(t, "bad -o", c.fails("persona", "list", "-o", "yaml"), `unknown output format "yaml": use table or json`)

	wantContains(t, "retire without reason", c.fails("persona", "retire", "work/core/lead"), `"reason" not set`)
	out = c.ok("persona", "retire", "work/core/lead", "--reason", "context exhausted")
	wantContains(t, "retire queued", out, "retirement of Porrima (work/core/lead, generation 1) queued for human:owner: confirmation c-",
		"you are the bound human: approve it with")
	id := strings.Fields(out[strings.Index(out, "confirm approve ")+len("confirm approve "):])[0]
	wantContains(t, "still active", c.ok("persona", "show", "Porrima"), "state            active")
	wantContains(t, "retirement detail", c.ok("confirm", "show", id), "asked by human:owner: context exhausted")
	c.ok("confirm", "approve", id)
	c.activate("--scope", "work", "--project", "core", "--role", "lead", "--name", "Zavijava")

	var list []map[string]any
	if err := json.Unmarshal([]byte(c.ok("persona", "list", "-o", "json")), &list); err != nil || len(list) != 2 {
		t.Fatalf("list -o json = %v, %v; want 2 personas", list, err)
	}
	if err := json.Unmarshal([]byte(c.ok("persona", "list", "--all", "-o", "json")), &list); err != nil || len(list) != 3 {
		t.Fatalf("list --all -o json = %v, %v; want 3 personas", list, err)
	}
	if list[1]["name"] != "Porrima" || list[1]["state"] != "retired" || list[1]["retired_at"] == nil ||
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

// "the persona becomes active only when approved", by its
// bound human; a denial refuses the generation, and "retirement is
// destructive and is confirmed the same way".
func TestActivationAndRetirementAreConfirmed(t *testing.T) {
	c := newCLI(t)
	r := c.add("--scope", "work", "--role", "coordinator", "--name", "Porrima", "--human", "human:henry")
	id := r.Confirmation.ID
	wantContains(t, "pending", c.ok("persona", "show", "Porrima"), "state            pending")
	wantContains(t, "queued", c.ok("confirm", "list"), id, "credential-or-permission-change", "human:henry")
	wantContains(t, "not the bound human", c.fails("confirm", "approve", id), "only the routed authority decides")
	wantContains(t, "still pending", c.ok("persona", "show", "Porrima"), "state            pending")
	c.ok("confirm", "approve", id, "--as", "human:henry")
	wantContains(t, "active", c.ok("persona", "show", "Porrima"), "state            active", "activated")

	denied := c.add("--scope", "work", "--project", "core", "--role", "lead", "--name", "Heze", "--human", "human:henry")
	c.ok("confirm", "deny", denied.Confirmation.ID, "--as", "human:henry", "--reason", "not this quarter")
	wantContains(t, "refused", c.ok("persona", "show", "Heze"), "state            refused", "not this quarter")
	c.activate("--scope", "work", "--project", "core", "--role", "lead", "--name", "Auva", "--human", "human:henry")

	var ret struct {
		Persona      map[string]any `json:"persona"`
		Confirmation struct{ ID, Kind, Authority string }
	}
	out := c.ok("persona", "retire", "Porrima", "--reason", "lane closed", "-o", "json")
	if err := json.Unmarshal([]byte(out), &ret); err != nil || ret.Persona["state"] != "active" ||
		ret.Confirmation.Kind != "retirement" || ret.Confirmation.Authority != "human:henry" {
		t.Fatalf("retire -o json = %+v, %v\n%s", ret, err, out)
	}
	wantContains(t, "not the bound human", c.fails("confirm", "approve", ret.Confirmation.ID), "only the routed authority decides")
	c.ok("confirm", "approve", ret.Confirmation.ID, "--as", "human:henry")
	wantContains(t, "retired", c.ok("persona", "show", "Porrima"), "state            retired")

	out = c.ok("persona", "retire", "Auva", "--reason", "keep it?", "-o", "json")
	if err := json.Unmarshal([]byte(out), &ret); err != nil {
		t.Fatal(err)
	}
	c.ok("confirm", "deny", ret.Confirmation.ID, "--as", "human:henry", "--reason", "keep it")
	wantContains(t, "denied retirement", c.ok("persona", "show", "Auva"), "state            active")
	// a denial answers that request, not every later one: asking again
	// queues a new confirmation, and a pending one is joined
	denial := ret.Confirmation.ID
	out = c.ok("persona", "retire", "Auva", "--reason", "lead moved on", "-o", "json")
	if err := json.Unmarshal([]byte(out), &ret); err != nil || ret.Confirmation.ID == denial || ret.Confirmation.Kind != "retirement" {
		t.Fatalf("asked again after a denial: %+v, %v\n%s", ret, err, out)
	}
	wantContains(t, "joined", c.ok("persona", "retire", "Auva", "--reason", "twice"), "confirmation "+ret.Confirmation.ID)
	c.ok("confirm", "approve", ret.Confirmation.ID, "--as", "human:henry")
	// the registry records the requester's reason, not the decision
	wantContains(t, "retire reason", c.ok("persona", "show", "Auva"), "state            retired", "lead moved on")
	wantContains(t, "already retired", c.ok("persona", "retire", "Auva", "--reason", "again"),
		"Auva (work/core/lead, generation 2) is already retired: confirmation "+ret.Confirmation.ID+" approved by human:henry (lead moved on)")

	// Regrant of the retired seat goes through the same confirmation.
	re := c.add("--scope", "work", "--role", "coordinator", "--name", "Zaniah", "--human", "human:henry")
	if re.Persona["generation"] != 2.0 || re.Persona["state"] != "pending" || !strings.Contains(re.Confirmation.Detail, "work/coordinator") {
		t.Errorf("regrant = %+v", re)
	}
}

func TestPersonaShowFreeSeat(t *testing.T) {
	c := newCLI(t)
	r := c.add("--scope", "work", "--project", "core", "--role", "deputy", "--name", "Heze")
	c.ok("confirm", "deny", r.Confirmation.ID, "--reason", "wrong seat")
	out := c.ok("persona", "show", "work/core/deputy")
	wantContains(t, "show of a free seat", out, "name             Heze", "state            refused", "refuse reason")
}

func TestPersonaAddNeedsFlags(t *testing.T) {
	c := newCLI(t)
	errOut := c.fails("persona", "add")
	wantContains(t, "bare add", errOut, "persona add needs --scope, --role, --name (without flags it runs an interactive wizard, which needs a terminal)",
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
	c.add("--scope", "root", "--role", "secretary", "--name", "Spica")
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

// Each command's in-process hub is stopped after it: a second command
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
