package usecase

import (
	"context"
	"errors"
	"fmt"

	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/tasks"
	"github.com/virgo-hub/virgo-tui/internal/tasks/board"
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
	task, plan, err := board.PlanAssign(ctx, u.st, tasks.Task{ID: t.Value, Scope: t.Scope, Project: t.Project,
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
// seat, or by it (a task belongs to the seat: a new generation finds its
// predecessors' tasks).
func listTasks(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	side := tasks.AssignedTo
	if c.Args.Str("which") == string(tasks.AssignedBy) {
		side = tasks.AssignedBy
	}
	limit, _ := c.Args.Int("limit")
	page, err := board.List(ctx, u.st, c.Persona.Address, side, c.Args.Str("state"), c.Args.Str("after"), int(limit))
	return page, store.Plan{}, err
}

// getTask is get_task: the task the operation's target names.
func getTask(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	t, _, err := board.Get(ctx, u.st, c.Operation.Target.Value)
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
	t, plan, err := board.PlanReport(ctx, u.st, c.Operation.Target.Value,
		tasks.Report{By: partyOf(c.Persona), At: c.Now, Progress: in.Progress, Evidence: in.Evidence, State: in.State})
	if err != nil || t.By.Address == "" {
		return t, plan, err // a human assigner reads the task in the console
	}
	err = u.joinNotice(ctx, c, &plan, notice{To: t.By.Address, About: coord.About{Kind: "task", ID: t.ID, Event: "reported"},
		Subject: "task reported: " + t.State, Body: fmt.Sprintf("%s reported on task %s (%s), now %s, with %d evidence references.\nRead the report with get_task.",
			c.Persona.Address, t.ID, t.Title, t.State, len(in.Evidence))})
	return t, plan, err
}

// ErrOtherProject: a task is reassigned within its own project.
var ErrOtherProject = errors.New("a task is reassigned to a seat of its own scope and project; assign a new task elsewhere")

// cancelTask is cancel_task_v1: the task the target names is cancelled,
// with the reason, by the caller its scope allows (the assigner's side);
// its reports and runs stay, and its assignee's seat is told.
func cancelTask(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	reason := c.Args.Str("reason")
	t, plan, err := board.PlanCancel(ctx, u.st, c.Operation.Target.Value, tasks.Report{By: partyOf(c.Persona), At: c.Now, Progress: reason})
	if err != nil {
		return nil, store.Plan{}, err
	}
	err = u.joinNotice(ctx, c, &plan, notice{To: t.Assignee.Address, About: coord.About{Kind: "task", ID: t.ID, Event: "cancelled"},
		Subject: "task cancelled", Body: fmt.Sprintf("%s cancelled task %s (%s): %s\nStop its work; its runs stay.", c.Persona.Address, t.ID, t.Title, reason)})
	return t, plan, err
}

// reassignTask is reassign_task_v1: the task the target names moves to the
// active holder of another seat of its scope and project (the caller's own
// included: a lead takes over its retired deputy's work), with the reason;
// its state goes back to assigned, its reports and runs stay, and both
// seats are told.
func reassignTask(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	target, reason := c.Operation.Target, c.Args.Str("reason")
	addr, err := registry.ParseAddress(c.Args.Str("assignee"))
	if err != nil {
		return nil, store.Plan{}, err
	}
	if addr.Scope != target.Scope || addr.Project != target.Project {
		return nil, store.Plan{}, fmt.Errorf("task %s of %s/%s to %s: %w", target.Value, target.Scope, target.Project, addr, ErrOtherProject)
	}
	to, seat, err := u.reg.ActiveHolder(ctx, addr.String())
	if err != nil {
		return nil, store.Plan{}, fmt.Errorf("reassign task %s to %s: %w", target.Value, addr, err)
	}
	t, from, plan, err := board.PlanReassign(ctx, u.st, target.Value, partyOf(to), tasks.Report{By: partyOf(c.Persona), At: c.Now, Progress: reason})
	if err != nil {
		return nil, store.Plan{}, err
	}
	plan.Conds = append(plan.Conds, seat)
	err = u.joinNotice(ctx, c, &plan, notice{To: to.Address, About: coord.About{Kind: "task", ID: t.ID, Event: "assigned"},
		Subject: "task assigned", Body: fmt.Sprintf("%s reassigned task %s (%s) to you from %s: %s\nRead it with get_task; report with report_task.",
			c.Persona.Address, t.ID, t.Title, from.Address, reason)})
	if err != nil {
		return nil, store.Plan{}, err
	}
	err = u.joinNotice(ctx, c, &plan, notice{To: from.Address, About: coord.About{Kind: "task", ID: t.ID, Event: "reassigned"},
		Subject: "task reassigned", Body: fmt.Sprintf("%s reassigned task %s (%s) to %s: %s\nStop its work; its runs stay.",
			c.Persona.Address, t.ID, t.Title, to.Address, reason)})
	return t, plan, err
}
