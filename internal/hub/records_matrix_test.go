package hub

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/tools"

	"github.com/virgo-hub/virgo-tui/internal/decisions"
	"github.com/virgo-hub/virgo-tui/internal/runs"
	"github.com/virgo-hub/virgo-tui/internal/tasks"
)

// recordCells are the spec's class matrix rows of the runs, decisions and
// graph tools (virgo-capability-surface.txt, "Class matrix"), quoted, in
// the column order secretary, team-coordinator, project-lead,
// coder-deputy — the rows internal/confirm/exhaustive_test.go checks
// Authorize against, here checked end to end through CallTool with real
// records:
//
//	bounded graph context query  R    R    R    R
//	decisions: list / raise      R/W  R/W  R/W  R/W
//	decisions: resolve           W¹   W²   W    -
//	runs and artifacts           R    R    R/W  R/W (assigned task)
//
// A cell's verdict for a tool: "done" (carried out), "confirm" (¹ ²: the
// bound human's or the lane approver's decision; a deputy's run outside
// its assigned task: its lead's), "denied" (not exposed: R exposes the
// read tools only, - nothing).
var recordCells = map[string][4]string{
	"query_graph_context": {"done", "done", "done", "done"},
	"list_decisions":      {"done", "done", "done", "done"},
	"raise_decision":      {"done", "done", "done", "done"},
	"resolve_decision":    {"confirm", "confirm", "done", "denied"},
	"list_runs":           {"done", "done", "done", "done"},
	"get_run":             {"done", "done", "done", "done"},
	"create_run":          {"denied", "denied", "done", "done"},
	"advance_run":         {"denied", "denied", "done", "done"},
	"append_run_event":    {"denied", "denied", "done", "done"},
	"record_artifact":     {"denied", "denied", "done", "done"},
}

func TestRecordToolsFromEveryClassAsTheMatrixSays(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	classes := [4]string{"root/secretary", "work/coordinator", "work/core/lead", "work/core/deputy"}
	names := [4]string{"Porrima", "Vindemiatrix", "Spica", "Zaniah"}
	ctx := context.Background()
	var callers [4]func(tool, args string) tools.ToolCall
	for i, addr := range classes {
		rt := th.runtime(t, th.addPersona(t, addr, names[i]))
		th.writeWorkspace(t, addr, "out/a", "a")
		callers[i] = func(tool, args string) tools.ToolCall {
			t.Helper()
			out, err := rt.CallTool(ctx, "", tool, json.RawMessage(args), "")
			if err != nil {
				t.Fatalf("%s %s %s: %v", addr, tool, args, err)
			}
			return out
		}
	}
	lead, deputy := callers[2], callers[3]
	var task tasks.Task
	mustNil(t, json.Unmarshal(lead("assign_task", `{"assignee":"work/core/deputy","title":"parser","brief":"b"}`).Result, &task))
	// A fresh run and an open decision for each call that changes one, so
	// each verdict is the matrix's and not the record's state.
	freshRun := func() string {
		var r runs.Run
		mustNil(t, json.Unmarshal(deputy("create_run", `{"task":"`+task.ID+`"}`).Result, &r))
		deputy("advance_run", `{"run":"`+r.ID+`","state":"running"}`)
		return r.ID
	}
	freshDecision := func() string {
		var d decisions.Decision
		mustNil(t, json.Unmarshal(lead("raise_decision", `{"question":"q","options":["a","b"]}`).Result, &d))
		return d.ID
	}
	args := map[string]func() string{
		"query_graph_context": func() string { return `{"query":"parser"}` },
		"list_decisions":      func() string { return `{}` },
		"raise_decision":      func() string { return `{"question":"q","options":["a","b"]}` },
		"resolve_decision":    func() string { return `{"decision":"` + freshDecision() + `","choice":"a"}` },
		"list_runs":           func() string { return `{"task":"` + task.ID + `"}` },
		"get_run":             func() string { return `{"run":"` + freshRun() + `"}` },
		"create_run":          func() string { return `{"task":"` + task.ID + `"}` },
		"advance_run":         func() string { return `{"run":"` + freshRun() + `","state":"blocked"}` },
		"append_run_event":    func() string { return `{"run":"` + freshRun() + `","text":"t"}` },
		"record_artifact":     func() string { return `{"run":"` + freshRun() + `","name":"a","path":"out/a"}` },
	}
	for tool, cells := range recordCells {
		for i, want := range cells {
			got := callers[i](tool, args[tool]())
			if string(got.Status) != want {
				t.Errorf("%s as %s: %s (%s), the matrix says %s", tool, classes[i], got.Status, got.Decision, want)
			}
		}
	}
}
