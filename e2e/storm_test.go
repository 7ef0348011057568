package e2e

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// stormTexts are what an operator types into fields: full of a and A, the
// keys that once approved when a field failed to open.
var stormTexts = []string{"after the freeze", "aAaA", "A", "a", "Ay", "approve ALL again", "yes a d A", "atlas"}

// TestArmingStormAgainstARealHub is the storm in a real terminal
// against a real hub: while the demo's runtimes keep asking (arrivals) and
// the command line decides some confirmations as the same operator
// (decisions elsewhere), the test types fields opened by `/`, `:` and `d`
// full of `a` and `A`, in bursts as a fast typist does, and makes a few
// deliberate decisions: `a` on a row it filtered to and looked at, and a
// deny with a reason. Afterwards the audit log must hold the operator's
// decisions on exactly the deliberate ones and those made elsewhere.
func TestArmingStormAgainstARealHub(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the arming storm drives the real binary in tmux for about 30 s")
	}
	c := startConsole(t, false, "")
	c.press("2", "[2 Queue")
	// The demo's seed decided some confirmations as the operator before
	// the storm (its personas are active): those are not the storm's.
	var seeded []auditEntry
	c.cliJSON(&seeded, "audit")
	before := map[string]bool{}
	for _, e := range seeded {
		before[e.ConfirmationID+" "+e.Event] = true
	}
	rng := rand.New(rand.NewPCG(9, 9))
	var deliberate, elsewhere []string
	fields := 0
	deadline := time.Now().Add(15 * time.Second)
	for round := 0; time.Now().Before(deadline) || len(deliberate) < 2 || len(elsewhere) < 1; round++ {
		if round > 200 {
			c.fatalf("the storm made only %d deliberate decisions in %d rounds", len(deliberate), round)
		}
		switch r := rng.IntN(10); {
		case r < 6:
			stormField(c, rng)
			fields++
		case r < 8:
			if id := pendingID(c, rng, append(deliberate, elsewhere...)); id != "" {
				if err := c.tryCLI("confirm", "approve", id); err != nil {
					t.Logf("confirm approve %s on the command line: %v (gone meanwhile?)", id, err)
					continue
				}
				elsewhere = append(elsewhere, id)
			}
		default:
			if id := pendingID(c, rng, append(deliberate, elsewhere...)); id != "" && decideDeliberately(c, id, len(deliberate)%2 == 1) {
				deliberate = append(deliberate, id)
			}
		}
	}
	c.press("q", exitMarker)
	var log []auditEntry
	c.cliJSON(&log, "audit")
	mine := map[string]string{}
	for _, e := range log {
		if (e.Event == "approved" || e.Event == "denied") && e.Actor == operator && !before[e.ConfirmationID+" "+e.Event] {
			if slices.Contains(deliberate, e.ConfirmationID) || slices.Contains(elsewhere, e.ConfirmationID) {
				mine[e.ConfirmationID] = e.Event
				continue
			}
			t.Errorf("audit: %s %s by %s, which the test never meant to decide", e.Event, e.ConfirmationID, e.Actor)
		}
	}
	for _, id := range append(deliberate, elsewhere...) {
		if _, ok := mine[id]; !ok {
			t.Errorf("audit: the deliberate decision on %s is missing", id)
		}
	}
	t.Logf("storm: %d typed fields, %d deliberate decisions in the console, %d on the command line, none other",
		fields, len(deliberate), len(elsewhere))
}

// stormField opens a field with `/`, `:` or `d` and types into it in one
// burst, as a fast typist does, then leaves it with esc (the storm never
// sends a deny; a filter or a jump may be kept with enter and is cleared
// by the esc after it).
func stormField(c *console, rng *rand.Rand) {
	c.t.Helper()
	opener := []string{"/", ":", "d"}[rng.IntN(3)]
	c.burst("-l", opener+stormTexts[rng.IntN(len(stormTexts))])
	if opener != "d" && rng.IntN(2) == 0 {
		c.burst("Enter")
	}
	c.burst("Escape")
	time.Sleep(time.Duration(rng.IntN(400)) * time.Millisecond)
}

// burst sends keys at once, without waiting for quiet: typing that races
// whatever the hub sends meanwhile.
func (c *console) burst(args ...string) {
	c.t.Helper()
	defer func() { c.sent = time.Now() }()
	if out, err := c.tmuxOut(append([]string{"send-keys", "-t", "e2e"}, args...)...); err != nil {
		c.fatalf("send-keys %q: %v: %s", args, err, out)
	}
}

// tryCLI runs a subcommand against the console's home as the operator and
// returns its error: a confirmation may expire or be withdrawn between
// listing it and deciding it.
func (c *console) tryCLI(args ...string) error {
	cmd := exec.Command(c.bin, append([]string{"--home", c.home}, args...)...)
	cmd.Env = append(os.Environ(), "VIRGO_PRINCIPAL="+operator, "NO_COLOR=1")
	return cmd.Run()
}

// pendingID is a random pending confirmation for the operator that the
// test has not decided yet, or "".
func pendingID(c *console, rng *rand.Rand, decided []string) string {
	var all []confirmationAnswer
	c.cliJSON(&all, "confirm", "list")
	var ids []string
	for _, cf := range all {
		if cf.State == "pending" && cf.Authority == operator && !slices.Contains(decided, cf.ID) {
			ids = append(ids, cf.ID)
		}
	}
	if len(ids) == 0 {
		return ""
	}
	return ids[rng.IntN(len(ids))]
}

var oneRowRe = regexp.MustCompile(` 1/\d+ rows`)

// decideDeliberately filters the queue to id, looks at it for longer than
// the arming time and approves it with `a` (or denies it with `d`, a
// reason and enter). It reports whether the decision was made; a
// confirmation that expired or was withdrawn meanwhile is not.
func decideDeliberately(c *console, id string, deny bool) bool {
	c.t.Helper()
	c.press("/", "filter ›")
	c.typeIn(id, "filter › "+id)
	if _, ok := c.poll(stepTimeout, oneRowRe.MatchString); !ok {
		c.keys("Escape")
		return false // gone meanwhile
	}
	c.pressUntil("Enter", "close the filter prompt", func(s string) bool { return !strings.Contains(s, "filter ›") })
	done := false
	if deny {
		c.keys("d")
		if _, ok := c.poll(stepTimeout, func(s string) bool { return strings.Contains(s, "— reason ›") }); ok {
			c.text("storm: deliberate")
			c.keys("Enter")
			_, done = c.poll(stepTimeout, func(s string) bool { return strings.Contains(s, "denied: ") })
		}
	} else {
		c.keys("a")
		_, done = c.poll(stepTimeout, func(s string) bool { return strings.Contains(s, "approved: ") })
	}
	c.keys("Escape") // clear the filter
	return done
}
