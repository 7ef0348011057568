package main

import (
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/tools"

	"github.com/virgo-hub/virgo-tui/internal/decisions"
)

// Through the command line: a secretary relays a resolution
// with --choice yes; confirm show and confirm list show the choice and the
// reason the human approves; the secretary's retry under the same
// correlation id with --choice no (or without the reason) is refused
// naming the correlation id, and the unchanged retry records "yes",
// decided by henry — once: a later retry answers the same record.
func TestARelayedResolutionRecordsTheChoiceTheHumanSaw(t *testing.T) {
	c := confirmSetup(t)
	c.activate("--scope", "root", "--role", "secretary", "--name", "Spica", "--human", "human:henry")
	asked := result[decisions.Decision](t, toolJSON(t, c, 0, "decision", "raise", "--as", "work/core/lead", "--question", "Ship it?",
		"--option", "yes", "--option", "no"))
	relay := []string{"decision", "resolve", "--as", "root/secretary", asked.ID, "--correlation-id", "relay-1"}
	wait := toolJSON(t, c, exitConfirm, append(relay, "--choice", "yes", "--reason", "henry said so")...)
	if wait.Status != tools.ToolConfirm {
		t.Fatalf("the relay: %+v", wait)
	}
	wantContains(t, "confirm show", c.ok("confirm", "show", wait.ConfirmationID), "decision", asked.ID, "choice", "yes", "reason", "henry said so")
	wantContains(t, "confirm list", c.ok("confirm", "list"), "choice=yes", "reason=henry said so")
	c.ok("confirm", "approve", wait.ConfirmationID, "--as", "human:henry")

	for _, swapped := range [][]string{{"--choice", "no", "--reason", "henry said so"}, {"--choice", "yes"}} {
		_, errOut, code := c.run(append(relay, swapped...)...)
		if code == 0 || !strings.Contains(errOut, "correlation id relay-1") || !strings.Contains(errOut, "different operation") {
			t.Fatalf("a retry with %v after the approval: exit %d, stderr %s", swapped, code, errOut)
		}
	}
	for range 2 {
		wantContains(t, "the approved relay", c.ok(append(relay, "--choice", "yes", "--reason", "henry said so")...),
			`resolved: "yes" by root/secretary, decided by human:henry (confirmation `+wait.ConfirmationID+")")
	}
	got := result[decisions.Decision](t, toolJSON(t, c, 0, append(relay, "--choice", "yes", "--reason", "henry said so")...))
	if got.Resolution == nil || got.Resolution.Option != "yes" {
		t.Fatalf("the recorded resolution: %+v", got.Resolution)
	}
}
