package hub

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/tools"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/tasks"
)

// POST /v1/tools/{tool} over the socket: a lead's runtime assigns a task,
// the deputy's runtime lists and reports it, an operator acts for a
// persona, a confirm call waits for the bound human and, retried under its
// correlation id after the approval, is allowed; every refusal is a named
// code.
func TestToolCallsOverTheSocket(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	lead := th.addPersona(t, "work/core/lead", "Spica")
	deputy := th.addPersona(t, "work/core/deputy", "Zaniah")
	ctx := context.Background()
	leadRT, depRT, henry := th.runtime(t, lead), th.runtime(t, deputy), th.operator(t, "henry")

	call, err := leadRT.CallTool(ctx, "", "assign_task", json.RawMessage(`{"assignee":"work/core/deputy","title":"port the parser","brief":"b"}`), "a-1")
	mustNil(t, err)
	var task tasks.Task
	mustNil(t, json.Unmarshal(call.Result, &task))
	if call.Status != tools.ToolDone || task.Assignee.ID != deputy.ID || task.Project != "core" {
		t.Fatalf("assign_task: %+v", call)
	}
	as, err := henry.Assignments(ctx, "work/core/deputy")
	mustNil(t, err)
	if len(as) != 1 || as[0].Task != "work/core/"+task.ID {
		t.Fatalf("the assignment endpoint sees the task: %+v", as)
	}
	list, err := henry.CallTool(ctx, "work/core/deputy", "list_tasks", nil, "")
	mustNil(t, err)
	if list.Status != tools.ToolDone || !strings.Contains(string(list.Result), task.ID) {
		t.Fatalf("an operator listing for the deputy: %+v %s", list, list.Result)
	}
	rep, err := depRT.CallTool(ctx, "", "report_task", json.RawMessage(`{"task":"`+task.ID+`","progress":"half way"}`), "")
	mustNil(t, err)
	if rep.Status != tools.ToolDone || !strings.Contains(string(rep.Result), `"in-progress"`) {
		t.Fatalf("report_task: %+v %s", rep, rep.Result)
	}

	pub := json.RawMessage(`{"destination":"https://example.org/r"}`)
	wait, err := leadRT.CallTool(ctx, "", "publish_deployment_v1", pub, "pub-1")
	mustNil(t, err)
	if wait.Status != tools.ToolConfirm || wait.ConfirmationID == "" {
		t.Fatalf("publication: %+v", wait)
	}
	_, err = henry.Decide(ctx, wait.ConfirmationID, hubapi.DecideRequest{Approve: true})
	mustNil(t, err)
	ok, err := leadRT.CallTool(ctx, "", "publish_deployment_v1", pub, "pub-1")
	mustNil(t, err)
	if ok.Status != tools.ToolAllowed || ok.Operation.Shape != "publish:external" {
		t.Fatalf("after approval: %+v", ok)
	}
	denied, err := depRT.CallTool(ctx, "", "send_human_message", json.RawMessage(`{"text":"hi"}`), "")
	mustNil(t, err)
	if denied.Status != tools.ToolDenied || denied.Decision.Boundary != confirm.BoundaryNotExposed {
		t.Fatalf("a deputy messaging the human: %+v", denied)
	}

	_, err = depRT.CallTool(ctx, "", "no_such_tool", nil, "")
	wantCode(t, err, "unknown_tool")
	_, err = depRT.CallTool(ctx, "", "get_task", json.RawMessage(`{"task":"t-1","scope":"home"}`), "")
	wantCode(t, err, "invalid_arguments")
	_, err = depRT.CallTool(ctx, "", "list_tasks", json.RawMessage(`{"after":"!!"}`), "")
	wantCode(t, err, "invalid_arguments")
	_, err = depRT.CallTool(ctx, "", "list_tasks", json.RawMessage(`{"after":"Li4vLi4v"}`), "")
	if err != nil {
		t.Fatalf("a well-formed foreign token only moves within the list: %v", err)
	}
	_, err = henry.CallTool(ctx, "", "list_tasks", nil, "")
	wantCode(t, err, "persona_required")
	_, err = depRT.CallTool(ctx, "", "get_task", json.RawMessage(`{"task":"t-0000000000000000"}`), "")
	wantCode(t, err, "no_task")
	_, err = leadRT.CallTool(ctx, "", "report_task", json.RawMessage(`{"task":"`+task.ID+`","progress":"mine"}`), "")
	wantCode(t, err, "not_assignee")
	_, err = depRT.CallTool(ctx, "", "report_task", json.RawMessage(`{"task":"`+task.ID+`","progress":"back","state":"assigned"}`), "")
	wantCode(t, err, "invalid_arguments") // not a state a report may take
	_, err = leadRT.CallTool(ctx, "", "assign_task", json.RawMessage(`{"assignee":"work/core/deputy","title":"x","brief":"y"}`), "a-1")
	wantCode(t, err, "correlation_reuse")
}
