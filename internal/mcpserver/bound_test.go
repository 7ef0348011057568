package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/decisions"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// Over MCP: an approved publication is answered "carry it
// out now" once; the agent's retry under the same correlation_id is told
// it was already carried out (not an error, nothing to do again), and a
// retry with another description is refused as a reuse of the id.
func TestAnApprovedPublicationIsHandedOutOnce(t *testing.T) {
	f := newFixture(t)
	p := f.persona(t, "work/core/lead", "Spica")
	cs := connect(t, f.runtime(t, p, Options{}), nil)
	approved := f.approveWhenAsked(t, p.ID)
	args := map[string]any{"destination": "https://example.org/site", "description": "v1.2", "correlation_id": "pub-1"}
	first := callTool(t, cs, stamp.PublishTool, args)
	id := <-approved
	if got := structured[published](t, first); first.IsError || got.Confirmation != id || !strings.Contains(got.Note, "carry the publish out now") {
		t.Fatalf("the approved publication: %s", text(first))
	}
	for range 2 {
		again := callTool(t, cs, stamp.PublishTool, args)
		var call hubapi.ToolCall
		b, _ := json.Marshal(again.StructuredContent)
		_ = json.Unmarshal(b, &call)
		if again.IsError || !strings.HasPrefix(text(again), "already carried out") || call.Status != "carried" || call.CarriedAt == nil ||
			strings.Contains(text(again), "carry the publish out now") {
			t.Fatalf("a retry of the carried-out publication: %s", text(again))
		}
	}
	args["description"] = "v6.6.6"
	if res := callTool(t, cs, stamp.PublishTool, args); !res.IsError || !strings.Contains(text(res), "correlation_reuse") {
		t.Fatalf("a retry with another description: %s", text(res))
	}
}

// Over MCP, as a team ran it: the secretary's
// resolve_decision {choice: "alpha"} waits past its confirm wait; henry
// approves what he was shown; the secretary's retry under the same
// correlation_id with choice "beta" is refused, and the retry as approved
// records "alpha", decided by henry.
func TestARelayedResolveDecisionOverMCPBindsTheChoice(t *testing.T) {
	f := newFixture(t)
	f.persona(t, "work/core/lead", "Spica")
	sec := f.persona(t, "root/secretary", "Porrima")
	raised, err := f.op.CallTool(context.Background(), "work/core/lead", "raise_decision",
		json.RawMessage(`{"question":"which?","options":["alpha","beta"]}`), "")
	if err != nil {
		t.Fatal(err)
	}
	var d decisions.Decision
	if err := json.Unmarshal(raised.Result, &d); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, f.runtime(t, sec, Options{ConfirmWait: 50 * time.Millisecond}), nil)
	args := map[string]any{"decision": d.ID, "choice": "alpha", "correlation_id": "res-1"}
	wait := callTool(t, cs, "resolve_decision", args)
	a := structured[Answer](t, wait)
	if a.Status != "unknown" || a.Confirmation == "" {
		t.Fatalf("the relay: %s", text(wait))
	}
	shown, err := f.op.Confirmation(context.Background(), a.Confirmation)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(shown.Operation.ArgumentLines(), " "); got != "decision="+d.ID+" choice=alpha" {
		t.Fatalf("the confirmation shows %q", got)
	}
	if _, err := f.op.Decide(context.Background(), a.Confirmation, hubapi.DecideRequest{Approve: true}); err != nil {
		t.Fatal(err)
	}
	args["choice"] = "beta"
	if res := callTool(t, cs, "resolve_decision", args); !res.IsError || !strings.Contains(text(res), "correlation_reuse") {
		t.Fatalf("the swapped choice after the approval: %s", text(res))
	}
	args["choice"] = "alpha"
	for range 2 {
		res := callTool(t, cs, "resolve_decision", args)
		got := structured[decisions.Decision](t, res)
		if res.IsError || got.Resolution == nil || got.Resolution.Option != "alpha" || got.Resolution.DecidedBy.String() != "human:henry" {
			t.Fatalf("the approved relay: %s", text(res))
		}
	}
}
