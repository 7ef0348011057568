package board

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
	"github.com/virgo-hub/virgo-tui/internal/tasks"
)

func open(t *testing.T) (*boltstore.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "virgo.db")
	st, err := boltstore.Open(path, boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, path
}

func commit(t *testing.T, st store.Store, p store.Plan) {
	t.Helper()
	if _, err := p.Commit(context.Background(), st); err != nil {
		t.Fatal(err)
	}
}

var (
	lead   = tasks.Party{ID: "p-lead", Address: "work/core/lead", Generation: 1}
	deputy = tasks.Party{ID: "p-dep1", Address: "work/core/deputy", Generation: 1}
	t0     = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
)

func assign(t *testing.T, st store.Store, id string, at time.Time) tasks.Task {
	t.Helper()
	task, plan, err := PlanAssign(context.Background(), st, tasks.Task{ID: id, Scope: "work", Project: "core", Assignee: deputy, By: lead,
		Title: "title " + id, Brief: "brief"}, at)
	if err != nil {
		t.Fatal(err)
	}
	commit(t, st, plan)
	return task
}

// TestAssignReportAndList: a task is assigned once (a retry answers it),
// only its assignee reports, states move by the state machine, a finished
// task takes nothing more, and the deputy's scope is its tasks.
func TestAssignReportAndList(t *testing.T) {
	ctx := context.Background()
	st, _ := open(t)
	task := assign(t, st, "t-1", t0)
	if task.State != tasks.StateAssigned {
		t.Fatalf("state %s", task.State)
	}
	again, plan, err := PlanAssign(ctx, st, tasks.Task{ID: "t-1", Assignee: deputy, By: lead, Title: "other"}, t0.Add(time.Hour))
	if err != nil || !plan.Empty() || again.Title != "title t-1" {
		t.Fatalf("retry: %+v %v %v", again, plan, err)
	}
	if _, _, err := PlanAssign(ctx, st, tasks.Task{ID: "t-x", Assignee: lead, By: lead}, t0); !errors.Is(err, tasks.ErrSelfAssignment) {
		t.Fatalf("self: %v", err)
	}
	if _, _, err := PlanReport(ctx, st, "t-1", tasks.Report{By: lead, At: t0, Progress: "mine?"}); !errors.Is(err, tasks.ErrNotAssignee) {
		t.Fatalf("lead reports: %v", err)
	}
	if _, _, err := PlanReport(ctx, st, "t-404", tasks.Report{By: deputy, At: t0, Progress: "x"}); !errors.Is(err, tasks.ErrNoTask) {
		t.Fatalf("no task: %v", err)
	}
	if _, _, err := PlanReport(ctx, st, "t-1", tasks.Report{By: deputy, At: t0, Progress: "x", State: tasks.StateAssigned}); !errors.Is(err, tasks.ErrIllegalState) {
		t.Fatalf("back to assigned: %v", err)
	}
	got, plan, err := PlanReport(ctx, st, "t-1", tasks.Report{By: deputy, At: t0.Add(time.Minute), Progress: "half", Evidence: []string{"run r-1"}})
	if err != nil || got.State != tasks.StateInProgress || len(got.Reports) != 1 {
		t.Fatalf("report: %+v %v", got, err)
	}
	commit(t, st, plan)
	_, plan, _ = PlanReport(ctx, st, "t-1", tasks.Report{By: deputy, At: t0.Add(2 * time.Minute), Progress: "all", State: tasks.StateDone})
	commit(t, st, plan)
	if _, _, err := PlanReport(ctx, st, "t-1", tasks.Report{By: deputy, At: t0, Progress: "more"}); !errors.Is(err, tasks.ErrTaskFinished) {
		t.Fatalf("report on done: %v", err)
	}

	for i := range 7 {
		assign(t, st, fmt.Sprintf("t-%d", 10+i), t0.Add(time.Duration(i+1)*time.Second))
	}
	var ids []string
	token := ""
	for {
		page, err := List(ctx, st, deputy.Address, tasks.AssignedTo, "", token, 3)
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range page.Items {
			ids = append(ids, task.ID)
		}
		if token = page.Next; token == "" {
			break
		}
	}
	if len(ids) != 8 || ids[0] != "t-1" || ids[7] != "t-16" {
		t.Fatalf("assigned-to pages: %v", ids)
	}
	given, err := List(ctx, st, lead.Address, tasks.AssignedBy, tasks.StateDone, "", 50)
	if err != nil || len(given.Items) != 1 || given.Items[0].ID != "t-1" {
		t.Fatalf("assigned-by, done: %+v %v", given, err)
	}
	none, err := List(ctx, st, lead.Address, tasks.AssignedTo, "", "", 50)
	if err != nil || len(none.Items) != 0 {
		t.Fatalf("the lead has no tasks assigned to it: %+v %v", none, err)
	}
	set, err := Assigned(ctx, st, deputy.Address)
	if err != nil || len(set) != 8 || !set.IsAssigned("", "t-1") || set.IsAssigned("", "t-404") {
		t.Fatalf("deputy scope %v %v", set, err)
	}
	if set, _ := Assigned(ctx, st, "work/web/deputy"); len(set) != 0 {
		t.Fatalf("another seat has %v", set)
	}
}

// "Its former path is a seat that may later be granted to a new persona
// generation under a new for-life name; admission then resolves to that new
// active holder" (virgo-persona-paths.txt): a task belongs to the seat. The
// new generation reports on the open task of the retired one (and becomes
// its assignee); the assigner's side cancels or reassigns a task with a
// reason, and every report stays.
func TestTasksBelongToTheSeat(t *testing.T) {
	ctx := context.Background()
	st, _ := open(t)
	assign(t, st, "t-1", t0)
	assign(t, st, "t-2", t0.Add(time.Second))
	_, plan, err := PlanReport(ctx, st, "t-1", tasks.Report{By: deputy, At: t0, Progress: "started"})
	if err != nil {
		t.Fatal(err)
	}
	commit(t, st, plan)
	next := tasks.Party{ID: "p-dep2", Address: deputy.Address, Generation: 2, Name: "Heze"}
	if set, _ := Assigned(ctx, st, next.Address); len(set) != 2 {
		t.Fatalf("the seat's next generation's scope %v, want both tasks", set)
	}
	got, plan, err := PlanReport(ctx, st, "t-1", tasks.Report{By: next, At: t0.Add(time.Minute), Progress: "taken over"})
	if err != nil {
		t.Fatalf("the seat's next generation reporting: %v", err)
	}
	commit(t, st, plan)
	if got.Assignee != next || len(got.Reports) != 2 || got.Reports[0].By != deputy || got.Reports[1].By != next {
		t.Fatalf("after the takeover: %+v", got)
	}
	other := tasks.Party{ID: "p-web", Address: "work/core/lead", Generation: 1}
	if _, _, err := PlanReport(ctx, st, "t-1", tasks.Report{By: other, At: t0, Progress: "mine"}); !errors.Is(err, tasks.ErrNotAssignee) {
		t.Fatalf("another seat reports: %v", err)
	}

	if _, _, err := PlanCancel(ctx, st, "t-1", tasks.Report{By: lead, At: t0}); !errors.Is(err, tasks.ErrNoReason) {
		t.Fatalf("a cancellation without a reason: %v", err)
	}
	got, plan, err = PlanCancel(ctx, st, "t-1", tasks.Report{By: lead, At: t0.Add(time.Hour), Progress: "superseded"})
	if err != nil || got.State != tasks.StateCancelled || len(got.Reports) != 3 || got.Reports[2].State != tasks.StateCancelled {
		t.Fatalf("cancel: %+v %v", got, err)
	}
	commit(t, st, plan)
	for _, err := range []error{
		func() error {
			_, _, err := PlanCancel(ctx, st, "t-1", tasks.Report{By: lead, At: t0, Progress: "again"})
			return err
		}(),
		func() error {
			_, _, err := PlanReport(ctx, st, "t-1", tasks.Report{By: next, At: t0, Progress: "more"})
			return err
		}(),
	} {
		if !errors.Is(err, tasks.ErrTaskFinished) {
			t.Fatalf("a cancelled task changed: %v", err)
		}
	}

	if _, _, _, err := PlanReassign(ctx, st, "t-2", next, tasks.Report{By: lead, At: t0, Progress: "x"}); !errors.Is(err, tasks.ErrSameAssignee) {
		t.Fatalf("reassigned to its own seat: %v", err)
	}
	got, from, plan, err := PlanReassign(ctx, st, "t-2", lead, tasks.Report{By: lead, At: t0.Add(2 * time.Hour), Progress: "Heze is busy"})
	if err != nil || from.Address != deputy.Address || got.Assignee != lead || got.State != tasks.StateAssigned {
		t.Fatalf("reassign: %+v from %+v, %v", got, from, err)
	}
	commit(t, st, plan)
	if set, _ := Assigned(ctx, st, deputy.Address); len(set) != 1 || !set.IsAssigned("", "t-1") {
		t.Fatalf("the old seat's tasks after the reassignment: %v", set)
	}
	if set, _ := Assigned(ctx, st, lead.Address); len(set) != 1 || !set.IsAssigned("", "t-2") {
		t.Fatalf("the new seat's tasks after the reassignment: %v", set)
	}
	given, err := List(ctx, st, lead.Address, tasks.AssignedBy, "", "", 50)
	if err != nil || len(given.Items) != 2 {
		t.Fatalf("the lead's given tasks stay: %+v %v", given, err)
	}
}

// TestReportsAreBounded: a task takes MaxReports reports; then only one
// that finishes it.
func TestReportsAreBounded(t *testing.T) {
	ctx := context.Background()
	st, _ := open(t)
	assign(t, st, "t-1", t0)
	task, kv, _ := Get(ctx, st, "t-1")
	task.Reports = make([]tasks.Report, tasks.MaxReports)
	val, _ := json.Marshal(task)
	commit(t, st, store.Plan{Ops: []store.Op{store.Put(kv.Key, val)}})
	if _, _, err := PlanReport(ctx, st, "t-1", tasks.Report{By: deputy, At: t0, Progress: "one more"}); !errors.Is(err, tasks.ErrReportsFull) {
		t.Fatalf("over the bound: %v", err)
	}
	if _, _, err := PlanReport(ctx, st, "t-1", tasks.Report{By: deputy, At: t0, Progress: "done", State: tasks.StateDone}); err != nil {
		t.Fatalf("finishing report refused: %v", err)
	}
}
