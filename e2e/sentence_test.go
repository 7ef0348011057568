package e2e

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// TestTypedSentenceDecidesNothingAgainstARealHub is the reported
// defect's reproduction in a real terminal against a real hub: on an armed row of
// the queue, the sentences "are you there" and "looks good, approve it⏎",
// typed at human speed (50–250 ms a key), decide nothing — the audit log
// holds no decision of the operator's afterwards — and a deliberate `a`
// (a pause, the key, a pause) still approves in under a second.
func TestTypedSentenceDecidesNothingAgainstARealHub(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the sentence test drives the real binary in tmux for about 15 s")
	}
	c := startConsole(t, false, "")
	c.press("2", "[2 Queue")
	decisions := func() map[string]string {
		var log []auditEntry
		c.cliJSON(&log, "audit")
		out := map[string]string{}
		for _, e := range log {
			if (e.Event == "approved" || e.Event == "denied") && e.Actor == operator {
				out[e.ConfirmationID] = e.Event
			}
		}
		return out
	}
	before := decisions()
	rng := rand.New(rand.NewPCG(27, 2))
	id := pendingID(c, rng, nil)
	if id == "" {
		t.Fatal("the demo has no confirmation pending for the operator")
	}
	armOn := func() {
		c.press("/", "filter ›")
		c.keys("C-u") // the field opens on the filter kept before
		c.typeIn(id, "filter › "+id)
		if _, ok := c.poll(stepTimeout, oneRowRe.MatchString); !ok {
			c.fatalf("%s is not in the queue", id)
		}
		c.pressUntil("Enter", "close the filter prompt", func(s string) bool { return !strings.Contains(s, "filter ›") })
		time.Sleep(time.Second) // selected and visible for more than the arming time: armed
	}
	armOn()
	for _, sentence := range []string{"are you there", "looks good, approve it\n"} {
		for _, r := range sentence {
			if r == '\n' {
				c.burst("Enter")
			} else {
				c.burst("-l", string(r))
			}
			time.Sleep(time.Duration(50+rng.IntN(201)) * time.Millisecond)
		}
		time.Sleep(time.Second) // any decision held would have gone by now
		c.burst("Escape")
		c.burst("Escape")
		time.Sleep(300 * time.Millisecond)
	}
	after := decisions()
	for cid, ev := range after {
		if _, ok := before[cid]; !ok {
			t.Errorf("a typed sentence %s %s (audit)", ev, cid)
		}
	}
	if t.Failed() {
		c.fatalf("typed sentences decided")
	}
	armOn()
	sent := time.Now()
	c.burst("a")
	s, ok := c.poll(stepTimeout, func(s string) bool { return strings.Contains(s, "approved: ") })
	took := time.Since(sent)
	if !ok {
		c.fatalf("a deliberate a did not approve %s:\n%s", id, s)
	}
	if took >= time.Second {
		t.Errorf("a deliberate a approved after %v; want under a second", took)
	}
	if got := decisions()[id]; got != "approved" {
		t.Errorf("audit: %s is %q after the deliberate a, want approved", id, got)
	}
	t.Logf("two sentences typed on an armed row decided nothing; the deliberate a approved %s in %v", id, took.Round(10*time.Millisecond))
}
