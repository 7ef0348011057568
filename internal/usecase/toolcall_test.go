package usecase

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/confirm/queue"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/tasks"
	"github.com/virgo-hub/virgo-tui/internal/tools"
)

// active registers and activates a stamped persona at address.
func active(t *testing.T, in *installation, address, name string) (registry.Persona, Caller) {
	t.Helper()
	ctx := context.Background()
	res, err := in.cases.Register(ctx, Key{}, Registration{Registration: registry.Registration{Address: address, Name: name, Human: "human:henry"}})
	mustNil(t, err)
	_, err = in.cases.Decide(ctx, Key{}, henry, res.Confirmation.ID, true, confirm.RememberNone, "")
	mustNil(t, err)
	p, err := in.reg.Get(ctx, res.Persona.ID)
	mustNil(t, err)
	return p, Caller{Principal: confirm.PersonaPrincipal(p.Address), PersonaID: p.ID}
}

func callTool(t *testing.T, in *installation, c Caller, tool, args, corr string) (tools.ToolCall, error) {
	t.Helper()
	return in.cases.CallTool(context.Background(), Key{}, c, ToolRequest{Tool: tool, Args: json.RawMessage(args), CorrelationID: corr})
}

func taskOf(t *testing.T, call tools.ToolCall) tasks.Task {
	t.Helper()
	var task tasks.Task
	mustNil(t, json.Unmarshal(call.Result, &task))
	return task
}

// The spec's delegation through tool calls: a lead assigns its deputy a
// task (once, however often the call is retried under its correlation id),
// the deputy lists and reports it, and the deputy's scope is its tasks.
func TestToolCallsAssignListAndReportTasks(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	_, lead := active(t, in, "work/core/lead", "Spica")
	deputy, dep := active(t, in, "work/core/deputy", "Zaniah")

	assign := `{"assignee":"work/core/deputy","title":"port the parser","brief":"make it total","bounds":["internal/parse only"]}`
	call, err := callTool(t, in, lead, "assign_task", assign, "assign-1")
	mustNil(t, err)
	task := taskOf(t, call)
	if call.Status != tools.ToolDone || task.ID != tools.NewRecordID(confirm.TargetTask, lead.PersonaID, "assign-1") ||
		task.Scope != "work" || task.Project != "core" || task.Assignee.ID != deputy.ID || task.State != tasks.StateAssigned {
		t.Fatalf("assign_task: %+v %+v", call, task)
	}
	again, err := callTool(t, in, lead, "assign_task", assign, "assign-1")
	mustNil(t, err)
	if string(again.Result) != string(call.Result) {
		t.Fatalf("a retry under the same correlation id answered %s, want %s", again.Result, call.Result)
	}
	if _, err := callTool(t, in, lead, "assign_task", `{"assignee":"work/core/deputy","title":"other","brief":"b"}`, "assign-1"); !errors.Is(err, confirm.ErrCorrelationReuse) {
		t.Fatalf("the correlation id reused for other arguments: %v", err)
	}

	list, err := callTool(t, in, dep, "list_tasks", `{}`, "")
	mustNil(t, err)
	var page struct {
		Items []tasks.Task `json:"items"`
		Next  string       `json:"next"`
	}
	mustNil(t, json.Unmarshal(list.Result, &page))
	if list.Status != tools.ToolDone || len(page.Items) != 1 || page.Items[0].ID != task.ID || page.Next != "" || list.CorrelationID == "" {
		t.Fatalf("the deputy's tasks: %+v %s", list, list.Result)
	}
	pol, err := in.cases.Policy(ctx, deputy)
	mustNil(t, err)
	op := confirm.Operation{Persona: deputy.Address, Generation: deputy.Generation, Tool: "get_run", HandlerAction: "run.get",
		Target: confirm.Target{Kind: confirm.TargetRun, Scope: "work", Project: "core", Task: task.ID, Value: "r-1"}, Shape: "read:meta"}
	if d := pol.Authorize(op); d.Verdict != confirm.Allow {
		t.Fatalf("a run of the deputy's task: %v, want allow (its scope is its tasks)", d)
	}

	report, err := callTool(t, in, dep, "report_task", `{"task":"`+task.ID+`","progress":"parser ported","evidence":["run r-1"],"state":"done"}`, "rep-1")
	mustNil(t, err)
	if got := taskOf(t, report); report.Status != tools.ToolDone || got.State != tasks.StateDone || len(got.Reports) != 1 {
		t.Fatalf("report_task: %+v", got)
	}
	if _, err := callTool(t, in, lead, "report_task", `{"task":"`+task.ID+`","progress":"mine"}`, ""); !errors.Is(err, tasks.ErrNotAssignee) {
		t.Fatalf("the lead reporting the deputy's task: %v", err)
	}
	denied, err := callTool(t, in, dep, "assign_task", `{"assignee":"work/core/lead","title":"t","brief":"b"}`, "")
	mustNil(t, err)
	if denied.Status != tools.ToolDenied || denied.Decision.Boundary != confirm.BoundaryNotExposed {
		t.Fatalf("a deputy assigning: %+v", denied)
	}
	for args, want := range map[string]error{
		`{"task":"t-404"}`:                    tasks.ErrNoTask,
		`{"task":"t-1","project":"web"}`:      tools.ErrInvalidArguments,
		`{"task":"../../persona/x"}`:          tools.ErrInvalidArguments,
		`{"task":"t-1","correlation_id":"A"}`: tools.ErrInvalidArguments,
	} {
		if _, err := callTool(t, in, dep, "get_task", args, ""); !errors.Is(err, want) {
			t.Errorf("get_task %s: %v, want %v", args, err, want)
		}
	}
	if _, err := callTool(t, in, dep, "rm_rf", `{}`, ""); !errors.Is(err, tools.ErrUnknownTool) {
		t.Errorf("unknown tool: %v", err)
	}
	es, err := queue.Audit(ctx, in.st)
	mustNil(t, err)
	var calls int
	for _, e := range es {
		if e.Event == "tool-call" {
			calls++
		}
	}
	if calls != 2 {
		t.Errorf("%d tool-call audit entries, want 2 (the assignment once, the report)", calls)
	}
}

// A call at a confirm boundary waits for its authority; retried under its
// correlation id after the approval it is carried out, and a runtime tool
// is answered with the allowed operation for the runtime to carry out.
func TestToolCallWaitsForItsConfirmation(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	_, lead := active(t, in, "work/core/lead", "Spica")
	publish := `{"destination":"https://example.org/release","action":"deploy"}`
	first, err := callTool(t, in, lead, "publish_deployment_v1", publish, "pub-1")
	mustNil(t, err)
	if first.Status != tools.ToolConfirm || first.ConfirmationID == "" || first.Decision.Boundary != confirm.BoundaryPublication {
		t.Fatalf("publication: %+v, want confirm", first)
	}
	pending, err := callTool(t, in, lead, "publish_deployment_v1", publish, "pub-1")
	mustNil(t, err)
	if pending.Status != tools.ToolConfirm || pending.ConfirmationID != first.ConfirmationID {
		t.Fatalf("retry while pending: %+v", pending)
	}
	_, err = in.cases.Decide(ctx, Key{}, henry, first.ConfirmationID, true, confirm.RememberNone, "")
	mustNil(t, err)
	done, err := callTool(t, in, lead, "publish_deployment_v1", publish, "pub-1")
	mustNil(t, err)
	if done.Status != tools.ToolAllowed || done.Operation.Target.String() != "external:https://example.org/release" || done.Operation.Shape != "deploy" {
		t.Fatalf("after approval: %+v", done)
	}
	other, err := callTool(t, in, lead, "publish_deployment_v1", publish, "pub-2")
	mustNil(t, err)
	if other.Status != tools.ToolConfirm || other.ConfirmationID == first.ConfirmationID {
		t.Fatalf("a new call is a new confirmation: %+v", other)
	}
	escape, err := callTool(t, in, lead, "workspace_read", `{"path":"../other/QUEUE.md"}`, "")
	mustNil(t, err)
	if escape.Status != tools.ToolDenied || escape.Decision.Boundary != confirm.BoundaryCrossScope {
		t.Fatalf("an escaping path: %+v", escape)
	}
}

// Every hub tool of the tool table has the hub's executor, so the MCP
// server's boot proof, which checks only a runtime tool's executor, lets
// no stamped tool through unexecuted.
func TestEveryHubToolHasAnExecutor(t *testing.T) {
	for _, row := range tools.All() {
		if _, ok := executors[row.Name]; !row.Runtime && !ok {
			t.Errorf("%s: the hub has no executor for it; a stamp listing it would not boot", row.Name)
		}
	}
}
