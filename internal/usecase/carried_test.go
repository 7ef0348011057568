package usecase

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/tools"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/decisions"
)

// At most once outlives the correlation id's record: once the idempotency
// sweep has dropped it (past the window, or a persona flooding the bound),
// a retry that reaches the approved confirmation again is answered from
// the record kept beside the confirmation — the relayed resolution's
// result, the publication as carried — and nothing is carried out again.
func TestAnApprovedOperationStaysCarriedOutAfterTheSweep(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	_, lead := active(t, in, "work/core/lead", "Spica")
	_, sec := active(t, in, "root/secretary", "Porrima")
	raised, err := callTool(t, in, lead, "raise_decision", `{"question":"ship?","options":["yes","no"]}`, "q-1")
	mustNil(t, err)
	var d decisions.Decision
	mustNil(t, json.Unmarshal(raised.Result, &d))

	approve := func(call tools.ToolCall, err error) {
		t.Helper()
		mustNil(t, err)
		if call.Status != tools.ToolConfirm {
			t.Fatalf("%s: %+v, want it to wait for henry", call.Tool, call)
		}
		_, err = in.cases.Decide(ctx, Key{}, henry, call.ConfirmationID, true, confirm.RememberNone, "")
		mustNil(t, err)
	}
	resolve := `{"decision":"` + d.ID + `","choice":"yes"}`
	publish := `{"destination":"https://example.org/r","description":"v1"}`
	approve(callTool(t, in, sec, "resolve_decision", resolve, "r-1"))
	approve(callTool(t, in, lead, "publish_deployment_v1", publish, "p-1"))
	done, err := callTool(t, in, sec, "resolve_decision", resolve, "r-1")
	mustNil(t, err)
	handed, err := callTool(t, in, lead, "publish_deployment_v1", publish, "p-1")
	mustNil(t, err)
	if done.Status != tools.ToolDone || handed.Status != tools.ToolAllowed {
		t.Fatalf("the approved calls: %+v, %+v", done, handed)
	}

	in.clk.advance(IdempotencyWindow + time.Minute)
	if n, err := in.cases.SweepIdempotency(ctx); err != nil || n == 0 {
		t.Fatalf("the sweep dropped %d records (%v)", n, err)
	}
	again, err := callTool(t, in, sec, "resolve_decision", resolve, "r-1")
	mustNil(t, err)
	if again.Status != tools.ToolDone || string(again.Result) != string(done.Result) || again.ConfirmationID != done.ConfirmationID {
		t.Fatalf("the resolution retried after the sweep: %+v %s; want the recorded %s", again, again.Result, done.Result)
	}
	twice, err := callTool(t, in, lead, "publish_deployment_v1", publish, "p-1")
	mustNil(t, err)
	if twice.Status != tools.ToolCarried || twice.CarriedAt == nil || !twice.CarriedAt.Equal(*handed.CarriedAt) {
		t.Fatalf("the publication retried after the sweep: %+v; want it recorded as carried at %v", twice, handed.CarriedAt)
	}
}
