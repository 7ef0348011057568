package usecase

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/tasks"
	"github.com/virgo-hub/virgo-tui/internal/tools"
)

// "Its former path is a seat that may later be granted to a new persona
// generation under a new for-life name; admission then resolves to that new
// active holder" (virgo-persona-paths.txt). A deputy retired mid-task
// leaves its task to the seat: the next generation lists, reports and runs
// it; the lead cancels or reassigns a task with a reason (taking one over
// itself), the seat is told, and every report stays.
func TestTasksBelongToTheSeatAcrossARetirement(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	leadP, lead := active(t, in, "work/core/lead", "Spica")
	first, dep := active(t, in, "work/core/deputy", "Zaniah")
	done := func(call tools.ToolCall, err error) tools.ToolCall {
		t.Helper()
		mustNil(t, err)
		if call.Status != tools.ToolDone {
			t.Fatalf("%s: %s (%+v)", call.Tool, call.Status, call.Decision)
		}
		return call
	}
	task := taskOf(t, done(callTool(t, in, lead, "assign_task", `{"assignee":"work/core/deputy","title":"port","brief":"b"}`, "a-1")))
	other := taskOf(t, done(callTool(t, in, lead, "assign_task", `{"assignee":"work/core/deputy","title":"docs","brief":"b"}`, "a-2")))
	done(callTool(t, in, dep, "report_task", `{"task":"`+task.ID+`","progress":"started"}`, ""))
	run := done(callTool(t, in, dep, "create_run", `{"task":"`+task.ID+`"}`, "run-1"))

	r, err := in.cases.Retire(ctx, Key{}, Caller{Principal: henry}, first.ID, "replaced")
	mustNil(t, err)
	_, err = in.cases.Decide(ctx, Key{}, henry, r.Confirmation.ID, true, confirm.RememberNone, "")
	mustNil(t, err)
	if _, err := callTool(t, in, lead, "report_task", `{"task":"`+task.ID+`","progress":"mine"}`, ""); !errors.Is(err, tasks.ErrNotAssignee) {
		t.Fatalf("the lead reporting its deputy's task: %v, want %v (it reassigns it first)", err, tasks.ErrNotAssignee)
	}

	next, dep2 := active(t, in, "work/core/deputy", "Heze")
	var page struct{ Items []tasks.Task }
	mustNil(t, jsonOf(done(callTool(t, in, dep2, "list_tasks", `{}`, "")).Result, &page))
	if len(page.Items) != 2 {
		t.Fatalf("the seat's next generation lists %d tasks, want the 2 it inherits", len(page.Items))
	}
	got := taskOf(t, done(callTool(t, in, dep2, "report_task", `{"task":"`+task.ID+`","progress":"taken over"}`, "")))
	if got.Assignee.ID != next.ID || len(got.Reports) != 2 || got.Reports[0].By.ID != first.ID {
		t.Fatalf("the inherited task after its report: %+v", got)
	}
	done(callTool(t, in, dep2, "get_run", `{"run":"`+runOf(t, run)+`"}`, ""))

	moved := taskOf(t, done(callTool(t, in, lead, "reassign_task_v1", `{"task":"`+task.ID+`","assignee":"work/core/lead","reason":"I finish it"}`, "re-1")))
	if moved.Assignee.ID != leadP.ID || moved.State != tasks.StateAssigned || len(moved.Reports) != 3 {
		t.Fatalf("reassigned: %+v", moved)
	}
	lastAbout(t, in, next, coord.About{Kind: "task", ID: task.ID, Event: "reassigned"})
	done(callTool(t, in, lead, "report_task", `{"task":"`+task.ID+`","progress":"finished","state":"done"}`, ""))
	if _, err := callTool(t, in, lead, "reassign_task_v1", `{"task":"`+other.ID+`","assignee":"work/web/lead","reason":"x"}`, ""); !errors.Is(err, ErrOtherProject) {
		t.Fatalf("a task reassigned out of its project: %v", err)
	}

	denied, err := callTool(t, in, dep2, "cancel_task_v1", `{"task":"`+other.ID+`","reason":"bored"}`, "")
	mustNil(t, err)
	if denied.Status != tools.ToolDenied || denied.Decision.Boundary != confirm.BoundaryNotExposed {
		t.Fatalf("a deputy cancelling: %+v", denied)
	}
	cancelled := taskOf(t, done(callTool(t, in, lead, "cancel_task_v1", `{"task":"`+other.ID+`","reason":"out of scope"}`, "c-1")))
	if cancelled.State != tasks.StateCancelled {
		t.Fatalf("cancelled: %+v", cancelled)
	}
	lastAbout(t, in, next, coord.About{Kind: "task", ID: other.ID, Event: "cancelled"})
	for tool, args := range map[string]string{
		"report_task":    `{"task":"` + other.ID + `","progress":"more"}`,
		"cancel_task_v1": `{"task":"` + other.ID + `","reason":"again"}`,
	} {
		c := dep2
		if tool == "cancel_task_v1" {
			c = lead
		}
		if _, err := callTool(t, in, c, tool, args, ""); !errors.Is(err, tasks.ErrTaskFinished) {
			t.Errorf("%s on a cancelled task: %v", tool, err)
		}
	}
	if _, err := callTool(t, in, dep2, "create_run", `{"task":"`+other.ID+`"}`, ""); !errors.Is(err, ErrTaskFinished) {
		t.Errorf("a run of a cancelled task: %v", err)
	}
}

// runOf is the id of the run a create_run call answered.
func runOf(t *testing.T, call tools.ToolCall) string {
	t.Helper()
	var r struct{ ID string }
	mustNil(t, jsonOf(call.Result, &r))
	return r.ID
}

func jsonOf(b []byte, v any) error { return json.Unmarshal(b, v) }
