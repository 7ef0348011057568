package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// shotsEnv names the directory TestScreenshots writes its captures to;
// scripts/screenshots.sh sets it and renders each capture to a PNG.
const shotsEnv = "VIRGO_SCREENSHOTS"

// activityRe matches a presence row whose runtime has reported an
// activity, so the presence capture shows a live installation.
var activityRe = regexp.MustCompile(`● active  [a-z]`)

// highlight is the background of a cell that just changed (the console's
// brief highlight); a capture with many of them catches a burst of changes.
const highlight = "48;2;255;215;95"

// TestScreenshots captures the console's main views with their colours
// (tmux capture-pane -e) at 120×40, from the real program on a demo home:
// presence, the queue with the detail of the pending activation, the
// inbox with the confirmations routed to the operator, the wizard's
// preview of a new work/atlas/deputy, and the class matrix. It runs only when
// VIRGO_SCREENSHOTS names the output directory.
func TestScreenshots(t *testing.T) {
	dir := os.Getenv(shotsEnv)
	if dir == "" {
		t.Skip(shotsEnv + " is not set: scripts/screenshots.sh (make screenshots) sets it")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	c := startConsole(t, true, "")
	save := func(name string) {
		t.Helper()
		// Let the last key's effect and the next frame settle.
		time.Sleep(600 * time.Millisecond)
		path := filepath.Join(dir, name+".ansi")
		if err := os.WriteFile(path, []byte(c.screenANSI()), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", path)
	}

	// Presence, once most runtimes have said what they are doing.
	// Most runtimes have said what they are doing, and few cells are
	// caught in their change highlight.
	deadline := time.Now().Add(12 * time.Second)
	for time.Now().Before(deadline) {
		if len(activityRe.FindAllString(c.screen(), -1)) >= 6 && strings.Count(c.screenANSI(), highlight) <= 2 {
			break
		}
		time.Sleep(150 * time.Millisecond)
	}
	save("presence")

	// The queue, on the pending activation of root/operator with its
	// detail pane (requester, routing, boundary and class-matrix diff).
	c.press("2", "[2 Queue")
	filterQueue(c, "address:"+deniedAddress, "virgo.persona.activate address:"+deniedAddress)
	clearFilter(c) // the selection stays on it
	c.press("Enter", "class-matrix diff")
	save("queue")
	c.press("Escape", "REQUESTER")

	// The inbox: the demo's letters as threads, and above them the
	// confirmations routed to the operator (⚑), the selected one's bound
	// operation in the pane.
	c.press("5", "[5 Inbox")
	c.waitFor("⚑", stepTimeout)
	c.waitFor("root/secretary", stepTimeout)
	save("inbox")

	// The wizard's preview: the stamp and its class-matrix diff.
	s := c.press("3", "[3 Add persona]")
	if strings.Contains(s, "persona add needs a hub") {
		t.Errorf("view 3 has no wizard: wizard.png not captured")
	} else {
		c.waitFor("persona add · step 1 of 4 · scope", stepTimeout)
		c.typeIn("work", "✓ scope work")
		c.press("Enter", "step 2 of 4 · project")
		c.typeIn(newProject, "✓ new project work/"+newProject)
		c.press("Enter", "step 3 of 4 · role")
		c.typeIn("deputy", "✓ address "+newAddress)
		c.press("Enter", "step 4 of 4 · name")
		c.waitFor("✓ name ", stepTimeout)
		c.press("Enter", "address "+newAddress+" · name ")
		c.waitFor("CAPABILITY-STAMP.json", stepTimeout)
		save("wizard")
		c.press("C-c", "[1 Presence]") // cancels the wizard: nothing registered
	}

	// The class matrix.
	c.press("4", "[4 Matrix]")
	save("matrix")
}
