package usecase

import (
	"context"
	"errors"
	"fmt"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/confirm/queue"
	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/tasks"
	"github.com/virgo-hub/virgo-tui/internal/tasks/board"
)

// deputy resolves the active generation whose assigned tasks change, with
// its stamp and the condition that holds while its record is as read.
func (u *Cases) deputy(ctx context.Context, ref string) (registry.Persona, stamp.Stamp, store.Cond, error) {
	if ref == "" {
		return registry.Persona{}, stamp.Stamp{}, store.Cond{}, fmt.Errorf("name the deputy: send \"persona\" (an address, name or id): %w", ErrPersonaRequired)
	}
	p, guard, err := u.guarded(ctx, ref)
	if err != nil {
		return p, stamp.Stamp{}, guard, err
	}
	if p.State != registry.StateActive {
		return p, stamp.Stamp{}, guard, fmt.Errorf("%s (%s) is %s: tasks are assigned to an active generation: %w", p.Address, p.Name, p.State, ErrNotActive)
	}
	st, err := u.LoadStamp(ctx, p)
	return p, st, guard, err
}

// taskError names a malformed task an invalid operation; every other
// refusal of the assignment rules is confirm's own named error.
func taskError(err error) error {
	if errors.Is(err, confirm.ErrTargetSyntax) || errors.Is(err, confirm.ErrUpperCase) {
		return invalidOperation(err)
	}
	return err
}

// Assign records task ("scope/project/task", in the deputy's project) as a
// task assigned to the active deputy generation ref names, on the word of
// by: its owning lead or its bound human (confirm.AssignmentTarget). The
// task, its audit entry and the idempotency record are one transaction,
// guarded on the deputy's record as read, so no task is assigned to a
// generation after its retirement commits. Assigning an assigned task
// answers its assignment and writes nothing.
func (u *Cases) Assign(ctx context.Context, k Key, by Caller, ref, task string) (confirm.Assignment, error) {
	var a confirm.Assignment
	err := u.commit(ctx, UseAssign, "assign "+task, func() (store.Plan, error) {
		if ok, err := u.replayed(ctx, k, &a); ok || err != nil {
			return store.Plan{}, err
		}
		p, st, guard, err := u.deputy(ctx, ref)
		if err != nil {
			return store.Plan{}, err
		}
		target, err := confirm.AssignmentTarget(by.Principal, &st, task)
		if err != nil {
			return store.Plan{}, taskError(err)
		}
		assigner, err := u.party(ctx, by)
		if err != nil {
			return store.Plan{}, err
		}
		now := u.now().UTC()
		t, plan, err := board.PlanAssign(ctx, u.st, tasks.Task{ID: target.Value, Scope: target.Scope, Project: target.Project,
			Assignee: partyOf(p), By: assigner, Title: "task " + target.Value}, now)
		a = assignmentOf(t)
		if err != nil || plan.Empty() {
			return store.Plan{}, err
		}
		audit, err := queue.AuditOp(confirm.AuditEntry{Time: now, Event: "task-assigned", Actor: by.Principal, Persona: p.Address,
			Operation: target.String()})
		if err != nil {
			return store.Plan{}, err
		}
		plan.Ops = append(plan.Ops, audit)
		plan.Conds = append(plan.Conds, guard)
		rec, err := u.record(k, a)
		plan.Join(rec)
		return plan, err
	})
	if err != nil {
		return confirm.Assignment{}, err
	}
	return a, nil
}

// Unassign removes a task assigned to the deputy generation ref names,
// with the rules of Assign; a task not assigned to it is
// confirm.ErrNotAssigned, except for a repeat of a request (same Key) that
// removed it.
func (u *Cases) Unassign(ctx context.Context, k Key, by Caller, ref, task string) error {
	return u.commit(ctx, UseAssign, "unassign "+task, func() (store.Plan, error) {
		var done struct{}
		if ok, err := u.replayed(ctx, k, &done); ok || err != nil {
			return store.Plan{}, err
		}
		p, st, guard, err := u.deputy(ctx, ref)
		if err != nil {
			return store.Plan{}, err
		}
		target, err := confirm.AssignmentTarget(by.Principal, &st, task)
		if err != nil {
			return store.Plan{}, taskError(err)
		}
		t, plan, err := board.PlanRemove(ctx, u.st, target.Value)
		if errors.Is(err, tasks.ErrNoTask) || err == nil && (t.Assignee.Address != p.Address || t.Scope != target.Scope || t.Project != target.Project) {
			return store.Plan{}, fmt.Errorf("unassign %s from %s: %w", target, p.Address, confirm.ErrNotAssigned)
		}
		if err != nil {
			return store.Plan{}, err
		}
		audit, err := queue.AuditOp(confirm.AuditEntry{Time: u.now().UTC(), Event: "task-unassigned", Actor: by.Principal,
			Persona: p.Address, Operation: target.String()})
		if err != nil {
			return store.Plan{}, err
		}
		plan.Ops = append(plan.Ops, audit)
		plan.Conds = append(plan.Conds, guard)
		rec, err := u.record(k, done)
		plan.Join(rec)
		return plan, err
	})
}

// Assignments lists the tasks assigned to the seat at address (whichever
// generation holds it: a task belongs to the seat), as assignments.
func (u *Cases) Assignments(ctx context.Context, address string) ([]confirm.Assignment, error) {
	var out []confirm.Assignment
	token := ""
	for {
		page, err := board.List(ctx, u.st, address, tasks.AssignedTo, "", token, paging.MaxLimit)
		if err != nil {
			return nil, err
		}
		for _, t := range page.Items {
			out = append(out, assignmentOf(t))
		}
		if token = page.Next; token == "" {
			return out, nil
		}
	}
}

// party is the caller as a task's assigner: its generation, or the human.
func (u *Cases) party(ctx context.Context, c Caller) (tasks.Party, error) {
	if !c.IsPersona() {
		return tasks.Party{ID: c.Principal.String()}, nil
	}
	p, err := u.reg.Get(ctx, c.PersonaID)
	if err != nil {
		return tasks.Party{}, err
	}
	return partyOf(p), nil
}

// assignmentOf is a task as the assignment endpoint answers it.
func assignmentOf(t tasks.Task) confirm.Assignment {
	by := confirm.PersonaPrincipal(t.By.Address)
	if t.By.Address == "" {
		by, _ = confirm.ParsePrincipal(t.By.ID) // a human assigner's id is its principal
	}
	return confirm.Assignment{PersonaID: t.Assignee.ID, Persona: t.Assignee.Address, Generation: t.Assignee.Generation,
		Task: t.Scope + "/" + t.Project + "/" + t.ID, AssignedBy: by, Time: t.Created}
}
