// Package board is the stored book of tasks (internal/tasks holds the
// record and its values): the records by id and their two indexes, by
// assignee seat and by assigner, read and changed by planned writes
// (store.Plan) that the use case calling it commits in one transaction.
// It keeps the record's own rules: the assignee is the one who reports,
// the states move only forward (the state machine), and nothing grows
// without bound.
package board

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/paging/pager"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
	"github.com/virgo-hub/virgo-tui/internal/tasks"
)

// The store layout of tasks.
const (
	// PrefixRecord holds tasks by id.
	PrefixRecord = "tasks/rec/"
	// prefixAssigned indexes tasks by the assignee's seat, in assignment
	// order: tasks/assigned/<seat address>/#<time>-<task id> ("#" is in
	// no address, so no seat's prefix is a prefix of another's).
	prefixAssigned = "tasks/assigned/"
	// prefixGiven indexes tasks by who assigned them (a seat address, or
	// a human principal), in assignment order.
	prefixGiven = "tasks/given/"
)

// moves is the state machine: the states a report may move a task to.
var moves = map[string][]string{
	tasks.StateAssigned:   {tasks.StateInProgress, tasks.StateBlocked, tasks.StateDone},
	tasks.StateInProgress: {tasks.StateInProgress, tasks.StateBlocked, tasks.StateDone},
	tasks.StateBlocked:    {tasks.StateInProgress, tasks.StateBlocked, tasks.StateDone},
}

func keyRecord(id string) string { return PrefixRecord + id }

// key is the party as an index key: its seat, or a human's principal.
func partyKey(p tasks.Party) string {
	if p.Address != "" {
		return p.Address
	}
	return p.ID
}

func indexPrefix(prefix, party string) string { return prefix + party + "/#" }

func indexKey(prefix, party string, at time.Time, id string) string {
	return fmt.Sprintf("%s%020d-%s", indexPrefix(prefix, party), at.UnixNano(), id)
}

// Get reads one task.
func Get(ctx context.Context, st store.Store, id string) (tasks.Task, store.KV, error) {
	kv, err := st.Get(ctx, keyRecord(id))
	if errors.Is(err, store.ErrNotFound) {
		return tasks.Task{}, kv, fmt.Errorf("task %s: %w", id, tasks.ErrNoTask)
	}
	if err != nil {
		return tasks.Task{}, kv, fmt.Errorf("task %s: %w", id, err)
	}
	var t tasks.Task
	if err := strictjson.DecodeOpen(kv.Value, &t); err != nil {
		return tasks.Task{}, kv, fmt.Errorf("task %s: %w: %v", id, store.ErrCorrupt, err)
	}
	return t, kv, nil
}

// PlanAssign plans recording t (its ID, scope, project, parties, title,
// brief and bounds filled in by the caller) as a new task assigned at now,
// with its two index entries, guarded on the id being new. A task with
// the same id and assignee already stored is answered as it is and
// nothing is planned (a tool call's id derives from the call, so this is
// its retry); one of another assignee is ErrTaskExists.
func PlanAssign(ctx context.Context, st store.Store, t tasks.Task, now time.Time) (tasks.Task, store.Plan, error) {
	if t.Assignee.ID == t.By.ID {
		return tasks.Task{}, store.Plan{}, fmt.Errorf("%s: %w", t.Assignee.Address, tasks.ErrSelfAssignment)
	}
	if old, _, err := Get(ctx, st, t.ID); err == nil {
		if old.Assignee.Address != t.Assignee.Address {
			return tasks.Task{}, store.Plan{}, fmt.Errorf("task %s (%s's): %w", t.ID, old.Assignee.Address, tasks.ErrTaskExists)
		}
		return old, store.Plan{}, nil
	} else if !errors.Is(err, tasks.ErrNoTask) {
		return tasks.Task{}, store.Plan{}, err
	}
	kvs, more, err := st.Range(ctx, indexPrefix(prefixAssigned, partyKey(t.Assignee)), "", tasks.MaxTasksPerAssignee)
	if err != nil {
		return tasks.Task{}, store.Plan{}, err
	}
	if more || len(kvs) >= tasks.MaxTasksPerAssignee {
		return tasks.Task{}, store.Plan{}, fmt.Errorf("%s: %w (%d)", t.Assignee.Address, tasks.ErrTooManyTasks, tasks.MaxTasksPerAssignee)
	}
	t.State, t.Created, t.Updated = tasks.StateAssigned, now, now
	val, err := json.Marshal(t)
	if err != nil {
		return tasks.Task{}, store.Plan{}, err
	}
	rec := keyRecord(t.ID)
	return t, store.Plan{Conds: []store.Cond{{Key: rec}}, Ops: []store.Op{
		store.Put(rec, val),
		store.Put(indexKey(prefixAssigned, partyKey(t.Assignee), now, t.ID), []byte(t.ID)),
		store.Put(indexKey(prefixGiven, partyKey(t.By), now, t.ID), []byte(t.ID)),
	}}, nil
}

// PlanReport plans the report r on task id by the holder of the task's
// seat (r.By; the caller admits it as the seat's active holder), guarded on
// the task as read: only the seat's holder reports, a finished task takes
// none, a state moves only as the state machine allows, and the reports
// are bounded (a report finishing the task is always taken). A new
// generation of the seat reporting becomes the task's assignee.
func PlanReport(ctx context.Context, st store.Store, id string, r tasks.Report) (tasks.Task, store.Plan, error) {
	t, kv, err := Get(ctx, st, id)
	if err != nil {
		return tasks.Task{}, store.Plan{}, err
	}
	switch {
	case r.By.Address == "" || t.Assignee.Address != r.By.Address:
		return tasks.Task{}, store.Plan{}, fmt.Errorf("task %s is %s's: %w", id, t.Assignee.Address, tasks.ErrNotAssignee)
	case t.Final():
		return tasks.Task{}, store.Plan{}, fmt.Errorf("task %s is %s: %w", id, t.State, tasks.ErrTaskFinished)
	case r.State != "" && !slices.Contains(moves[t.State], r.State):
		return tasks.Task{}, store.Plan{}, fmt.Errorf("task %s from %s to %q: %w (it may move to %v)", id, t.State, r.State, tasks.ErrIllegalState, moves[t.State])
	case len(t.Reports) >= tasks.MaxReports && r.State != tasks.StateDone:
		return tasks.Task{}, store.Plan{}, fmt.Errorf("task %s: %w (%d)", id, tasks.ErrReportsFull, tasks.MaxReports)
	}
	if r.State != "" {
		t.State = r.State
	} else if t.State == tasks.StateAssigned {
		t.State = tasks.StateInProgress
	}
	t.Assignee = r.By
	t.Reports = append(t.Reports, r)
	t.Updated = r.At
	return t, putPlan(t, kv), nil
}

// putPlan plans writing t over its record kv, guarded on kv as read.
func putPlan(t tasks.Task, kv store.KV) store.Plan {
	val, err := json.Marshal(t)
	if err != nil {
		panic(fmt.Sprintf("tasks: encode task %s: %v", t.ID, err)) // a task of plain values always marshals
	}
	return store.Plan{Conds: []store.Cond{{Key: kv.Key, ModRev: kv.ModRev}}, Ops: []store.Op{store.Put(kv.Key, val)}}
}

// change checks a change by the assigner's side to task t: not finished,
// with a reason, within the bound of reports (a change is one).
func change(t tasks.Task, r tasks.Report) error {
	switch {
	case t.Final():
		return fmt.Errorf("task %s is %s: %w", t.ID, t.State, tasks.ErrTaskFinished)
	case strings.TrimSpace(r.Progress) == "":
		return fmt.Errorf("task %s: %w", t.ID, tasks.ErrNoReason)
	}
	return nil
}

// PlanCancel plans cancelling task id (r.By, r.At and the reason in
// r.Progress): its state becomes cancelled, final, and its reports and
// runs stay. The caller has decided r.By may (the task's scope).
func PlanCancel(ctx context.Context, st store.Store, id string, r tasks.Report) (tasks.Task, store.Plan, error) {
	t, kv, err := Get(ctx, st, id)
	if err != nil {
		return tasks.Task{}, store.Plan{}, err
	}
	if err := change(t, r); err != nil {
		return tasks.Task{}, store.Plan{}, err
	}
	r.State, r.Progress = tasks.StateCancelled, "cancelled: "+r.Progress
	t.State, t.Updated = tasks.StateCancelled, r.At
	t.Reports = append(t.Reports, r)
	return t, putPlan(t, kv), nil
}

// PlanReassign plans moving task id to the seat of to (its active holder,
// read by the caller; r.By, r.At and the reason in r.Progress), the
// assigner's own included (a lead taking over its retired deputy's work
// finishes it itself; the caller keeps it in the task's project): the
// task's state goes back to assigned, its reports stay, and it leaves the
// old seat's index for the new one's (within the new seat's bound). The
// previous assignee is returned.
func PlanReassign(ctx context.Context, st store.Store, id string, to tasks.Party, r tasks.Report) (tasks.Task, tasks.Party, store.Plan, error) {
	t, kv, err := Get(ctx, st, id)
	if err != nil {
		return tasks.Task{}, tasks.Party{}, store.Plan{}, err
	}
	if err := change(t, r); err != nil {
		return tasks.Task{}, tasks.Party{}, store.Plan{}, err
	}
	if to.Address == t.Assignee.Address {
		return tasks.Task{}, tasks.Party{}, store.Plan{}, fmt.Errorf("task %s, %s: %w", id, to.Address, tasks.ErrSameAssignee)
	}
	kvs, more, err := st.Range(ctx, indexPrefix(prefixAssigned, partyKey(to)), "", tasks.MaxTasksPerAssignee)
	if err != nil {
		return tasks.Task{}, tasks.Party{}, store.Plan{}, err
	}
	if more || len(kvs) >= tasks.MaxTasksPerAssignee {
		return tasks.Task{}, tasks.Party{}, store.Plan{}, fmt.Errorf("%s: %w (%d)", to.Address, tasks.ErrTooManyTasks, tasks.MaxTasksPerAssignee)
	}
	from := t.Assignee
	r.State, r.Progress = tasks.StateAssigned, fmt.Sprintf("reassigned from %s to %s: %s", from.Address, to.Address, r.Progress)
	t.Assignee, t.State, t.Updated = to, tasks.StateAssigned, r.At
	t.Reports = append(t.Reports, r)
	plan := putPlan(t, kv)
	plan.Ops = append(plan.Ops,
		store.Op{Key: indexKey(prefixAssigned, partyKey(from), t.Created, t.ID), Delete: true},
		store.Put(indexKey(prefixAssigned, partyKey(to), t.Created, t.ID), []byte(t.ID)))
	return t, from, plan, nil
}

// PlanRemove plans deleting task id and its index entries, guarded on the
// task as read (the assignment endpoint's removal).
func PlanRemove(ctx context.Context, st store.Store, id string) (tasks.Task, store.Plan, error) {
	t, kv, err := Get(ctx, st, id)
	if err != nil {
		return tasks.Task{}, store.Plan{}, err
	}
	return t, store.Plan{Conds: []store.Cond{{Key: kv.Key, ModRev: kv.ModRev}}, Ops: []store.Op{
		{Key: kv.Key, Delete: true},
		{Key: indexKey(prefixAssigned, partyKey(t.Assignee), t.Created, t.ID), Delete: true},
		{Key: indexKey(prefixGiven, partyKey(t.By), t.Created, t.ID), Delete: true},
	}}, nil
}

// List reads one page of a party's tasks on side (party: a seat's
// address, or a human's principal), in assignment order, continuing after
// token (paging's form); state, when set, keeps only tasks in that state.
func List(ctx context.Context, st store.Store, party string, side tasks.Side, state, token string, limit int) (paging.Page[tasks.Task], error) {
	prefix := indexPrefix(prefixAssigned, party)
	if side == tasks.AssignedBy {
		prefix = indexPrefix(prefixGiven, party)
	}
	return pager.Read(ctx, st, prefix, token, limit, func(kv store.KV) (tasks.Task, bool, error) {
		t, _, err := Get(ctx, st, string(kv.Value))
		if err != nil {
			return tasks.Task{}, false, err
		}
		return t, state == "" || t.State == state, nil
	})
}

// Assigned is the set of task ids assigned to a seat: the deputy scope of
// its holder (confirm.Options.Assignments).
func Assigned(ctx context.Context, st store.Store, seat string) (confirm.TaskSet, error) {
	kvs, err := st.List(ctx, indexPrefix(prefixAssigned, seat))
	if err != nil {
		return nil, fmt.Errorf("tasks assigned to %s: %w", seat, err)
	}
	set := make(confirm.TaskSet, len(kvs))
	for _, kv := range kvs {
		set[string(kv.Value)] = true
	}
	return set, nil
}
