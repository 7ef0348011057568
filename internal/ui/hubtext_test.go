package ui

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/termtext"
)

// sgr matches the colour sequences the console itself writes; anything
// else starting with ESC on screen came from outside.
var sgr = regexp.MustCompile("\x1b\\[[0-9;:]*m")

// assertNoControls fails if the raw screen holds a control byte the
// console did not write itself.
func assertNoControls(t *testing.T, what, screen string) {
	t.Helper()
	rest := sgr.ReplaceAllString(screen, "")
	for _, r := range rest {
		if r == '\n' {
			continue
		}
		if termtext.Unsafe(r) {
			i := strings.IndexRune(rest, r)
			t.Fatalf("%s: control or invisible %U reached the screen near %q", what, r, rest[max(0, i-20):min(len(rest), i+20)])
		}
	}
}

// hostile ends in invisible text: Unicode Tag characters ("hi"), a Hangul
// filler and a variation selector, which a model reads and a human does
// not.
const hostile = "ok\x1b[2J\x1b]52;c;AAAA\x07 done\U000E0068\U000E0069\u3164\ufe0f"

// A persona's summary and activity are its own words: a clear-screen or an
// OSC 52 clipboard write in them must be drawn, not obeyed.
func TestHubTextCannotDriveTheTerminal(t *testing.T) {
	snap := demoSnapshot()
	snap.Installation = "demo\x1b]0;title\x07" // also the window title
	snap.Personas[0].Summary = hostile
	snap.Personas[0].Activity = "\u009b2Jrouting" // C1 CSI
	snap.Personas[0].Name = "Spi\x7fca"
	snap.Confirmations[0].Target = "path:x\x1b[8mhidden\x1b[0m.md"
	snap.Confirmations[1].MatrixDiff = "+ runs: R/W\x1b]0;title\x07\n- tasks: assign"
	h := &hubDouble{snap: snap}
	m := console(t, h, 120, 40)

	assertNoControls(t, "presence", m.Render())
	if row := plain(m); !strings.Contains(row, "ok\uFFFD[2J\uFFFD]52;c;AAAA") {
		t.Fatalf("the summary should show its escapes as U+FFFD:\n%s", row)
	}
	press(t, m, "j", "enter") // root/secretary, second by address
	assertNoControls(t, "presence detail", m.Render())
	if s := plain(m); !strings.Contains(s, "activity     \uFFFD2Jrouting") || !strings.Contains(s, "summary      ok\uFFFD[2J") {
		t.Fatalf("the detail pane lacks the cleaned activity and summary:\n%s", plain(m))
	}
	press(t, m, "esc", "2")
	assertNoControls(t, "queue", m.Render())
	if !strings.Contains(plain(m), "path:x\uFFFD[8mhidden\uFFFD[0m.md") {
		t.Fatalf("the queue should show the target's escapes as U+FFFD:\n%s", plain(m))
	}
	press(t, m, "j", "enter")
	assertNoControls(t, "queue detail", m.Render())
	if !strings.Contains(plain(m), "+ runs: R/W\uFFFD]0;title\uFFFD") {
		t.Fatalf("the detail pane lacks the cleaned matrix diff:\n%s", plain(m))
	}

	// The change stream is outside text too: a persona update, a new
	// confirmation and a decided-by note in the status line.
	p := snap.Personas[1]
	p.Summary = hostile
	cf := pendingFor("c-9", "human:henry")
	cf.Confirmation.Target = "path:drop\x1b[2J table"
	setClock(m, t0.Add(5*time.Second))
	m.Update(batchMsg{changes: []Change{
		{Seq: 11, Kind: PersonaChanged, Persona: p},
		cf,
		{Seq: 21, Kind: ConfirmationDecided, ID: "c-3", Outcome: "denied\x07", DecidedBy: "work/core/lead\x1b]0;pwned\x07"},
	}})
	assertNoControls(t, "queue after changes", m.Render())
	if !strings.Contains(plain(m), "decided by work/core/lead\uFFFD]0;pwned\uFFFD") {
		t.Fatalf("the status line lacks the cleaned decided-by note:\n%s", plain(m))
	}
	press(t, m, "esc", "1")
	assertNoControls(t, "presence after changes", m.Render())
}
