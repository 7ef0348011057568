package usecase

import (
	"context"
	"fmt"

	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/tasks"
)

// The executors of the task tools (rows of the executor table). Who may
// assign, read or report which task Authorize has decided under the
// caller's stamp before they run; they keep the record's own rules
// (internal/tasks).

// partyOf is a persona generation as a task's party.
func partyOf(p registry.Persona) tasks.Party {
	return tasks.Party{ID: p.ID, Address: p.Address, Generation: p.Generation, Name: p.Name}
}

// assignTask is assign_task: a task to the active holder of the assignee's
// seat, in its project (the operation's target), guarded on that seat as
// read, so a task is never given to a generation that has left the seat.
func assignTask(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	var in struct {
		Assignee string   `json:"assignee"`
		Title    string   `json:"title"`
		Brief    string   `json:"brief"`
		Bounds   []string `json:"bounds"`
	}
	if err := c.Args.Decode(&in); err != nil {
		return nil, store.Plan{}, err
	}
	assignee, seat, err := u.reg.ActiveHolder(ctx, in.Assignee)
	if err != nil {
		return nil, store.Plan{}, fmt.Errorf("assign a task to %s: %w", in.Assignee, err)
	}
	t := c.Operation.Target
	task, plan, err := tasks.PlanAssign(ctx, u.st, tasks.Task{ID: t.Value, Scope: t.Scope, Project: t.Project,
		Assignee: partyOf(assignee), By: partyOf(c.Persona), Title: in.Title, Brief: in.Brief, Bounds: in.Bounds,
		CorrelationID: c.CorrelationID}, c.Now)
	if err != nil || plan.Empty() {
		return task, plan, err
	}
	plan.Conds = append(plan.Conds, seat)
	err = u.joinNotice(ctx, c, &plan, notice{To: assignee.Address, About: coord.About{Kind: "task", ID: task.ID, Event: "assigned"},
		Subject: "task assigned", Body: fmt.Sprintf("%s assigned you task %s: %s\nRead it with get_task; report with report_task.",
			c.Persona.Address, task.ID, task.Title)})
	return task, plan, err
}

// listTasks is list_tasks: a page of the tasks assigned to the caller's
// generation, or by it.
func listTasks(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	side := tasks.AssignedTo
	if c.Args.Str("which") == string(tasks.AssignedBy) {
		side = tasks.AssignedBy
	}
	limit, _ := c.Args.Int("limit")
	page, err := tasks.List(ctx, u.st, c.Persona.ID, side, c.Args.Str("state"), c.Args.Str("after"), int(limit))
	return page, store.Plan{}, err
}

// getTask is get_task: the task the operation's target names.
func getTask(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	t, _, err := tasks.Get(ctx, u.st, c.Operation.Target.Value)
	return t, store.Plan{}, err
}

// reportTask is report_task: the assignee's progress report.
func reportTask(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	var in struct {
		Progress string   `json:"progress"`
		Evidence []string `json:"evidence"`
		State    string   `json:"state"`
	}
	if err := c.Args.Decode(&in); err != nil {
		return nil, store.Plan{}, err
	}
	t, plan, err := tasks.PlanReport(ctx, u.st, c.Operation.Target.Value, c.Persona.ID,
		tasks.Report{At: c.Now, Progress: in.Progress, Evidence: in.Evidence, State: in.State})
	if err != nil || t.By.Address == "" {
		return t, plan, err // a human assigner reads the task in the console
	}
	err = u.joinNotice(ctx, c, &plan, notice{To: t.By.Address, About: coord.About{Kind: "task", ID: t.ID, Event: "reported"},
		Subject: "task reported: " + t.State, Body: fmt.Sprintf("%s reported on task %s (%s), now %s, with %d evidence references.\nRead the report with get_task.",
			c.Persona.Address, t.ID, t.Title, t.State, len(in.Evidence))})
	return t, plan, err
}
