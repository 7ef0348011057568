package usecase

import (
	"context"
	"errors"
	"fmt"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/store"
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
	st, err := u.LoadStamp(p)
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

// Assign records task ("scope/project/task", in the deputy's project) as
// assigned to the active deputy generation ref names, on the word of by:
// its owning lead or its bound human (confirm's rules). The record, its
// audit entry and the idempotency record are one transaction, guarded on
// the deputy's record as read, so no task is assigned to a generation
// after its retirement commits. Assigning an assigned task answers its
// assignment and writes nothing.
func (u *Cases) Assign(ctx context.Context, k Key, by Caller, ref, task string) (confirm.Assignment, error) {
	var a confirm.Assignment
	err := u.commit(ctx, UseAssign, "assign "+task, func() (store.Plan, error) {
		if ok, err := u.replayed(ctx, k, &a); ok || err != nil {
			return store.Plan{}, err
		}
		_, st, guard, err := u.deputy(ctx, ref)
		if err != nil {
			return store.Plan{}, err
		}
		var plan store.Plan
		a, plan, err = u.queue.PlanAssign(ctx, by.Principal, &st, task)
		if err != nil || plan.Empty() {
			return store.Plan{}, taskError(err)
		}
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

// Unassign removes a task assigned to the deputy generation ref names, with
// the rules of Assign; a task not assigned is confirm.ErrNotAssigned,
// except for a repeat of a request (same Key) that removed it.
func (u *Cases) Unassign(ctx context.Context, k Key, by Caller, ref, task string) error {
	return u.commit(ctx, UseAssign, "unassign "+task, func() (store.Plan, error) {
		var done struct{}
		if ok, err := u.replayed(ctx, k, &done); ok || err != nil {
			return store.Plan{}, err
		}
		_, st, guard, err := u.deputy(ctx, ref)
		if err != nil {
			return store.Plan{}, err
		}
		plan, err := u.queue.PlanUnassign(ctx, by.Principal, &st, task)
		if err != nil {
			return store.Plan{}, taskError(err)
		}
		plan.Conds = append(plan.Conds, guard)
		rec, err := u.record(k, done)
		plan.Join(rec)
		return plan, err
	})
}
