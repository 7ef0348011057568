package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// operator is the human the console runs as (VIRGO_PRINCIPAL): the bound
// human of every demo persona, so every activation is routed to them.
const operator = "human:ada"

// Timeouts: generous for a loaded two-core machine, bounded so that a hang
// fails in well under a minute with the screen printed.
const (
	startTimeout = 30 * time.Second
	stepTimeout  = 10 * time.Second
)

// console is a demo installation with its console open in tmux.
type console struct {
	*term
	bin, home string
}

// startConsole builds virgo-tui, seeds a demo installation in a new home
// and opens its console at 120×40. colour false sets NO_COLOR (the tests
// read plain text); true keeps the colours (the screenshots). keysJSON, when
// not empty, is written to the home's keys.json first.
func startConsole(t *testing.T, colour bool, keysJSON string) *console {
	t.Helper()
	requireTools(t, "the end-to-end console test runs the binary in a real terminal inside tmux", "tmux")
	bin := buildBinary(t)
	// A short directory: the hub's unix socket lives under the home, and
	// socket paths are limited to about 100 bytes.
	dir, err := os.MkdirTemp("", "vte2e")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	// The home's last segment is the installation's name in the status bar.
	home := filepath.Join(dir, "virgo-demo")
	if keysJSON != "" {
		if err := os.MkdirAll(home, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, "keys.json"), []byte(keysJSON), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"TERM=xterm-256color", "VIRGO_PRINCIPAL=" + operator}
	if colour {
		env = append(env, "COLORTERM=truecolor")
	} else {
		env = append(env, "NO_COLOR=1")
	}
	tm := startTerm(t, dir, env, bin, "demo", "--home", home)
	tm.logs = append(tm.logs, filepath.Join(home, "console.log"))
	c := &console{term: tm, bin: bin, home: home}
	tm.waitFor("hub ● connected", startTimeout)
	tm.waitFor("[1 Presence]", stepTimeout)
	return c
}

// binEnv names a virgo-tui binary to test instead of building one (an
// installed build, or one built from another checkout).
const binEnv = "VIRGO_E2E_BIN"

// builtBinary is the binary the package's tests share: building it once per
// run instead of once per test keeps the package well inside go test's
// timeout on a busy 2-core machine, where each link took tens of seconds.
var builtBinary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// TestMain removes the shared binary's directory after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if builtBinary.dir != "" {
		os.RemoveAll(builtBinary.dir)
	}
	os.Exit(code)
}

// buildBinary builds ./cmd/virgo-tui once per test run, unless binEnv names
// a binary.
func buildBinary(t testing.TB) string {
	t.Helper()
	if bin := os.Getenv(binEnv); bin != "" {
		return bin
	}
	b := &builtBinary
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", "virgo-e2e-bin-"); b.err != nil {
			return
		}
		b.path = filepath.Join(b.dir, "virgo-tui")
		build := exec.Command("go", "build", "-o", b.path, "./cmd/virgo-tui")
		build.Dir = ".."
		if out, err := build.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// cli runs a subcommand against the console's home and returns its output.
func (c *console) cli(args ...string) []byte {
	c.t.Helper()
	cmd := exec.Command(c.bin, append([]string{"--home", c.home}, args...)...)
	cmd.Env = append(os.Environ(), "VIRGO_PRINCIPAL="+operator, "NO_COLOR=1")
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		c.t.Fatalf("virgo-tui %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
	}
	return out
}

// cliJSON runs a subcommand with -o json and decodes its answer into v.
func (c *console) cliJSON(v any, args ...string) {
	c.t.Helper()
	out := c.cli(append(args, "-o", "json")...)
	if err := json.Unmarshal(out, v); err != nil {
		c.t.Fatalf("virgo-tui %s -o json: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// The project the test creates: the demo's three projects all have their
// deputy seat taken (work/core's was even regranted), so the new deputy
// goes to a new project of the work scope.
const (
	newProject = "atlas"
	newAddress = "work/" + newProject + "/deputy"
	// deniedAddress is the demo's pending activation (the root operator
	// seat), the second confirmation, which the test denies.
	deniedAddress = "root/operator"
	denyReason    = "e2e: this installation needs no operator seat yet"
)

var (
	previewRe   = regexp.MustCompile(`address ` + regexp.QuoteMeta(newAddress) + ` · name (.+?) · profile coder-deputy`)
	submittedRe = regexp.MustCompile(`Activation confirmation (\S+) is queued\.`)
	exitRe      = regexp.MustCompile(regexp.QuoteMeta(exitMarker) + `(\d+)`)
)

// approveKeys is the keys.json of the flow: approve rebound to y (the promise:
// "rebind approve to y in keys.json and approve with it; a does nothing").
const approveKeys = `{"approve": ["y"]}`

// TestConsoleEndToEnd is the proof in a real terminal: walk the
// wizard to a new work/<project>/deputy, approve it in the queue, see it in
// the presence view, deny a second confirmation with a reason, quit, and
// check the store and the audit log through the command line. Approve is
// bound to y in keys.json: the wizard and the queue name y, a does nothing.
func TestConsoleEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the end-to-end console test builds the binary and drives it in tmux (about 20 s)")
	}
	start := time.Now()
	c := startConsole(t, false, approveKeys)
	t.Logf("console up after %s", time.Since(start).Round(time.Millisecond))

	// The status bar names the operator, and the demo's seed is listed.
	c.waitFor("as "+operator, stepTimeout)
	c.waitFor(deniedAddress, stepTimeout)

	name, confirmationID := walkWizard(c)
	t.Logf("wizard registered %s (%s), activation %s", newAddress, name, confirmationID)

	// The wizard leaves the activation pending and shows the queue.
	c.waitFor("[2 Queue", stepTimeout)
	c.waitFor(newAddress+" registered; its activation waits in the queue", stepTimeout)

	// "Approves it in the queue": filter the queue down to it; a, the
	// default approve key, does nothing under keys.json; y approves.
	filterQueue(c, confirmationID, "virgo.persona.activate address:"+newAddress)
	c.keys("a")
	if s, approved := c.poll(retryAfter, func(s string) bool { return strings.Contains(s, "approved:") }); approved {
		c.fatalf("a approved although keys.json binds approve to y:\n%s", s)
	}
	c.waitFor("y approve", stepTimeout)
	c.press("y", "approved: system:persona-add "+newAddress+"#1")
	clearFilter(c)

	// "Sees it in the presence view": its row, with its name and class.
	c.press("1", "[1 Presence]")
	row := c.waitMatch(regexp.MustCompile(regexp.QuoteMeta(newAddress)+`\s+(\S.*?)\s+coder-deputy\s+1\s`), stepTimeout)
	if shown := strings.TrimSuffix(row[1], "…"); !strings.HasPrefix(name, shown) {
		c.fatalf("presence row of %s shows name %q, want %q", newAddress, row[1], name)
	}

	// "Denies a second confirmation with a reason typed after d".
	c.press("2", "[2 Queue")
	filterQueue(c, "address:"+deniedAddress, "virgo.persona.activate address:"+deniedAddress)
	c.press("d", "deny system:persona-add — reason ›")
	c.typeIn(denyReason, "reason › "+denyReason)
	c.press("Enter", "denied: system:persona-add "+deniedAddress+"#1")
	clearFilter(c)

	// Quit; the console and its in-process hub end cleanly.
	c.press("q", exitMarker)
	if m := c.waitMatch(exitRe, stepTimeout); m[1] != "0" {
		c.fatalf("virgo-tui demo exited with status %s", m[1])
	}
	t.Logf("console flow done after %s", time.Since(start).Round(time.Millisecond))

	// With the hub gone, the command line reads the same home.
	checkPersona(t, c, newAddress, name)
	checkRefused(t, c)
	checkConfirmations(t, c, confirmationID)
	checkAudit(t, c, confirmationID)
	t.Logf("total %s", time.Since(start).Round(time.Millisecond))
}

// walkWizard opens the wizard and answers scope work, a new project, role
// deputy and the first suggested name; it submits and leaves the
// activation pending. It returns the name and the confirmation id.
func walkWizard(c *console) (name, confirmationID string) {
	c.t.Helper()
	s := c.press("3", "[3 Add persona]")
	if strings.Contains(s, "persona add needs a hub") {
		c.fatalf("view 3 has no wizard: the demo console was started without the wizard plugin")
	}
	c.waitFor("persona add · step 1 of 4 · scope", stepTimeout)
	c.typeIn("work", "✓ scope work")
	c.press("Enter", "step 2 of 4 · project")
	c.typeIn(newProject, "✓ new project work/"+newProject)
	c.press("Enter", "step 3 of 4 · role")
	c.typeIn("deputy", "✓ address "+newAddress)
	c.press("Enter", "step 4 of 4 · name")
	// The first free constellation name is preselected: enter takes it.
	c.waitFor("✓ name ", stepTimeout)
	c.press("Enter", "address "+newAddress+" · name ")
	name = c.waitMatch(previewRe, stepTimeout)[1]
	c.waitFor("CAPABILITY-STAMP.json", stepTimeout)
	c.waitFor("class-matrix diff", stepTimeout)
	// Submit: the submitted screen replaces the preview, so a repeated
	// enter can only land on the preview it was meant for.
	c.press("Enter", "is registered and waits for activation")
	confirmationID = c.waitMatch(submittedRe, stepTimeout)[1]
	// The operator is the bound human, so the wizard offers to approve on
	// the spot, with the key keys.json binds; the test declines (enter) to
	// approve in the queue instead.
	c.waitFor("You are the bound human: press y to approve it now", stepTimeout)
	c.press("Enter", "[2 Queue")
	return name, confirmationID
}

// filterQueue filters the queue by query (a confirmation id, or what its
// operation says) until the row showing want is the one left.
func filterQueue(c *console, query, want string) {
	c.t.Helper()
	c.press("/", "filter ›")
	c.typeIn(query, "filter › "+query)
	c.waitFor(want, stepTimeout)
	c.pressUntil("Enter", "close the filter prompt", func(s string) bool { return !strings.Contains(s, "filter ›") })
}

// clearFilter clears the current table's filter with esc.
func clearFilter(c *console) {
	c.t.Helper()
	for range keyTries {
		c.keys("Escape")
		if _, ok := c.poll(retryAfter, func(s string) bool { return !strings.Contains(s, "(esc clears)") }); ok {
			return
		}
	}
	c.fatalf("esc did not clear the filter")
}

// personaAnswer is the part of `persona show -o json` the test reads.
type personaAnswer struct {
	Persona struct {
		Name         string `json:"name"`
		Address      string `json:"address"`
		Role         string `json:"role"`
		Profile      string `json:"profile"`
		Generation   int    `json:"generation"`
		Human        string `json:"human"`
		State        string `json:"state"`
		RefuseReason string `json:"refuse_reason"`
	} `json:"persona"`
}

func checkPersona(t *testing.T, c *console, address, name string) {
	var p personaAnswer
	c.cliJSON(&p, "persona", "show", address)
	got := p.Persona
	if got.Address != address || got.Name != name || got.State != "active" || got.Generation != 1 ||
		got.Profile != "coder-deputy" || got.Human != operator {
		t.Errorf("persona show %s = %+v; want %s, name %s, active, generation 1, coder-deputy, bound to %s",
			address, got, address, name, operator)
	}
}

// checkRefused: a denied activation refuses the generation, with the
// operator's reason.
func checkRefused(t *testing.T, c *console) {
	var p personaAnswer
	c.cliJSON(&p, "persona", "show", deniedAddress)
	if p.Persona.State != "refused" || p.Persona.RefuseReason != denyReason {
		t.Errorf("persona show %s: state %q, refuse reason %q; want refused with %q",
			deniedAddress, p.Persona.State, p.Persona.RefuseReason, denyReason)
	}
}

// confirmationAnswer is the part of one `confirm list -o json` entry the
// test reads.
type confirmationAnswer struct {
	ID        string `json:"id"`
	Kind      string `json:"kind"`
	Requester string `json:"requester"`
	Authority string `json:"authority"`
	State     string `json:"state"`
	Operation struct {
		Persona string `json:"persona"`
		Tool    string `json:"tool"`
	} `json:"operation"`
	Decision *struct {
		Decision string `json:"decision"`
		Decider  string `json:"decider"`
		Reason   string `json:"reason"`
	} `json:"decision"`
}

func checkConfirmations(t *testing.T, c *console, approvedID string) {
	var all []confirmationAnswer
	c.cliJSON(&all, "confirm", "list", "--all")
	var approved, denied *confirmationAnswer
	for i := range all {
		cf := &all[i]
		switch {
		case cf.ID == approvedID:
			approved = cf
		case cf.Kind == "activation" && cf.Operation.Persona == deniedAddress:
			denied = cf
		}
	}
	if approved == nil {
		t.Fatalf("confirm list --all has no %s among %d confirmations", approvedID, len(all))
	}
	if approved.Kind != "activation" || approved.Operation.Persona != newAddress || approved.State != "approved" ||
		approved.Decision == nil || approved.Decision.Decider != operator {
		t.Errorf("confirmation %s = %+v (decision %+v); want the activation of %s approved by %s",
			approvedID, *approved, approved.Decision, newAddress, operator)
	}
	if denied == nil {
		t.Fatalf("confirm list --all has no activation of %s", deniedAddress)
	}
	if denied.State != "denied" || denied.Decision == nil || denied.Decision.Decider != operator ||
		denied.Decision.Reason != denyReason {
		t.Errorf("activation of %s = %+v (decision %+v); want denied by %s with reason %q",
			deniedAddress, *denied, denied.Decision, operator, denyReason)
	}
}

// auditEntry is the part of one `audit -o json` entry the test reads.
type auditEntry struct {
	Event          string `json:"event"`
	ConfirmationID string `json:"confirmation_id"`
	Actor          string `json:"actor"`
	Persona        string `json:"persona"`
	Reason         string `json:"reason"`
}

func checkAudit(t *testing.T, c *console, approvedID string) {
	var log []auditEntry
	c.cliJSON(&log, "audit")
	var approved, denied bool
	for _, e := range log {
		switch {
		case e.Event == "approved" && e.ConfirmationID == approvedID:
			approved = true
			if e.Actor != operator || e.Persona != newAddress {
				t.Errorf("audit: approval of %s by %q for %q; want by %s for %s", approvedID, e.Actor, e.Persona, operator, newAddress)
			}
		case e.Event == "denied" && e.Persona == deniedAddress:
			denied = true
			if e.Actor != operator || e.Reason != denyReason {
				t.Errorf("audit: denial of %s by %q with reason %q; want by %s with %q", deniedAddress, e.Actor, e.Reason, operator, denyReason)
			}
		}
	}
	if !approved || !denied {
		t.Errorf("audit (%d entries): approval of %s logged %v, denial of %s logged %v; want both",
			len(log), approvedID, approved, deniedAddress, denied)
	}
}
