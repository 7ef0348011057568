package usecase

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/confirm/queue"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/tools"
)

// "A deputy-scope confirmation goes to the owning lead ... A model cannot
// confirm its own request": the lead is told of its deputy's operation
// outside its tasks, lists it with the bound operation in full and decides
// it with a reason as an agent; the deputy is told, and its retry under
// the correlation id carries the operation out once. A global boundary, its
// own request or another's routing are refused by the rules that bind a
// human decider.
func TestTheLeadDecidesItsDeputysConfirmationAsAnAgent(t *testing.T) {
	in := newInstallation(t)
	// Routed by who holds a seat, as the hub routes.
	in.queue = queue.New(in.st, queue.Options{Now: in.clk.Now, Seats: Seats{Registry: in.reg}})
	in.cases = New(Config{Store: in.st, Registry: in.reg, Queue: in.queue, Now: in.clk.Now})
	leadP, lead := active(t, in, "work/core/lead", "Spica")
	deputy, dep := active(t, in, "work/core/deputy", "Zaniah")
	_, web := active(t, in, "work/web/lead", "Vindemiatrix")
	done := func(call tools.ToolCall, err error) tools.ToolCall {
		t.Helper()
		mustNil(t, err)
		if call.Status != tools.ToolDone {
			t.Fatalf("%s: %s (%+v)", call.Tool, call.Status, call.Decision)
		}
		return call
	}
	// A task of the project that is not the deputy's: the lead took it over.
	task := taskOf(t, done(callTool(t, in, lead, "assign_task", `{"assignee":"work/core/deputy","title":"t","brief":"b"}`, "a-1")))
	done(callTool(t, in, lead, "reassign_task_v1", `{"task":"`+task.ID+`","assignee":"work/core/lead","reason":"mine now"}`, ""))

	create := `{"task":"` + task.ID + `","title":"help"}`
	wait, err := callTool(t, in, dep, "create_run", create, "run-1")
	mustNil(t, err)
	if wait.Status != tools.ToolConfirm || wait.Decision.Boundary != confirm.BoundaryDeputyScope {
		t.Fatalf("a run of a task not the deputy's: %+v", wait)
	}
	lastAbout(t, in, leadP, coord.About{Kind: "confirmation", ID: wait.ConfirmationID, Event: "requested"})

	var routed Routed
	mustNil(t, json.Unmarshal(done(callTool(t, in, lead, "list_confirmations_v1", `{}`, "")).Result, &routed))
	if len(routed.Items) != 1 || routed.More || routed.Items[0].ID != wait.ConfirmationID ||
		routed.Items[0].Operation.Tool != "create_run" || routed.Items[0].Operation.Target.Task != task.ID {
		t.Fatalf("the lead's routed confirmations: %+v", routed)
	}
	var none Routed
	mustNil(t, json.Unmarshal(done(callTool(t, in, web, "list_confirmations_v1", `{}`, "")).Result, &none))
	if len(none.Items) != 0 {
		t.Fatalf("another lead lists %+v", none.Items)
	}
	if _, err := callTool(t, in, web, "decide_confirmation_v1", `{"confirmation":"`+wait.ConfirmationID+`","decision":"approve","reason":"x"}`, ""); !errors.Is(err, confirm.ErrNotAuthority) {
		t.Fatalf("another project's lead deciding: %v, want %v", err, confirm.ErrNotAuthority)
	}
	if _, err := callTool(t, in, lead, "decide_confirmation_v1", `{"confirmation":"`+wait.ConfirmationID+`","decision":"approve"}`, ""); !errors.Is(err, tools.ErrInvalidArguments) {
		t.Fatalf("a decision without a reason: %v", err)
	}
	denied, err := callTool(t, in, dep, "decide_confirmation_v1", `{"confirmation":"`+wait.ConfirmationID+`","decision":"approve","reason":"me"}`, "")
	mustNil(t, err)
	if denied.Status != tools.ToolDenied || denied.Decision.Boundary != confirm.BoundaryNotExposed {
		t.Fatalf("a deputy deciding: %+v", denied)
	}

	approved := done(callTool(t, in, lead, "decide_confirmation_v1", `{"confirmation":"`+wait.ConfirmationID+`","decision":"approve","reason":"go ahead"}`, "dec-1"))
	var conf confirm.Confirmation
	mustNil(t, json.Unmarshal(approved.Result, &conf))
	if conf.State != confirm.StateApproved || conf.Decision == nil || conf.Decision.Decider != confirm.PersonaPrincipal(leadP.Address) {
		t.Fatalf("decided %+v", conf)
	}
	lastAbout(t, in, deputy, coord.About{Kind: "confirmation", ID: wait.ConfirmationID, Event: "approved"})
	run := done(callTool(t, in, dep, "create_run", create, "run-1"))
	again := done(callTool(t, in, dep, "create_run", create, "run-1"))
	if runOf(t, run) != runOf(t, again) {
		t.Fatalf("the approved call carried out twice: %s, %s", run.Result, again.Result)
	}

	// A global boundary is the bound human's: the lead neither lists nor
	// decides its deputy's publication, nor its own.
	pub := `{"destination":"https://example.org/release"}`
	depPub, err := callTool(t, in, dep, "publish_deployment_v1", pub, "pub-1")
	mustNil(t, err)
	ownPub, err := callTool(t, in, lead, "publish_deployment_v1", pub, "pub-2")
	mustNil(t, err)
	mustNil(t, json.Unmarshal(done(callTool(t, in, lead, "list_confirmations_v1", `{}`, "")).Result, &routed))
	if len(routed.Items) != 0 {
		t.Fatalf("the lead lists the human's confirmations: %+v", routed.Items)
	}
	for id, want := range map[string]error{depPub.ConfirmationID: confirm.ErrModelDecision, ownPub.ConfirmationID: confirm.ErrSelfDecision} {
		if _, err := callTool(t, in, lead, "decide_confirmation_v1", `{"confirmation":"`+id+`","decision":"approve","reason":"x"}`, ""); !errors.Is(err, want) {
			t.Errorf("the lead deciding %s: %v, want %v", id, err, want)
		}
	}
}
