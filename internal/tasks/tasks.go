// Package tasks owns task records: a bounded piece of work a lead (or a
// secretary or coordinator within its subtree, or the bound human) assigns
// to a persona's seat, with the assignee's progress reports and their
// evidence. A task belongs to the seat, not the generation: a new
// generation of the seat inherits its open tasks (admission resolves to the
// seat's active holder, and the first report of the new holder makes it
// the task's assignee), so work is never orphaned by a retirement. A
// deputy's scope is the set of tasks assigned to its seat (Assigned, fed
// to confirm.Options.Assignments). The assigner's side may cancel or
// reassign a task, with a reason; its reports stay.
//
// The package reads the store and plans writes (store.Plan); the use case
// that calls it commits the one transaction. Who may assign or report is
// decided before, by confirm.Authorize under the caller's stamp (the task's
// scope and project are the stored record's); this package keeps the
// record's own rules: the assignee is the one who reports, the states move
// only forward, and nothing grows without bound.
package tasks

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

// Bounds: nothing a persona writes grows without limit.
const (
	// MaxReports bounds a task's progress reports; the last report (one
	// that finishes the task) is always taken.
	MaxReports = 200
	// MaxTasksPerAssignee bounds the tasks one seat holds.
	MaxTasksPerAssignee = 1000
)

// The states of a task: assigned → in-progress ⇄ blocked → done, and
// cancelled by the assigner's side from any state but done. Done and
// cancelled are final.
const (
	StateAssigned   = "assigned"
	StateInProgress = "in-progress"
	StateBlocked    = "blocked"
	StateDone       = "done"
	StateCancelled  = "cancelled"
)

// Named errors of tasks; each says what to do.
var (
	// ErrNoTask: the id names no task.
	ErrNoTask = errors.New("no such task")
	// ErrNotAssignee: only the holder of the task's seat reports on it.
	ErrNotAssignee = errors.New("only the holder of the task's assignee seat reports on it")
	// ErrTaskFinished: a done or cancelled task takes no more reports.
	ErrTaskFinished = errors.New("the task is finished: it takes no more reports or changes; ask for a new task")
	// ErrNoReason: cancelling or reassigning a task says why.
	ErrNoReason = errors.New("say why: cancelling or reassigning a task takes a reason")
	// ErrSameAssignee: a reassignment to the seat that holds the task.
	ErrSameAssignee = errors.New("the task is already assigned to that seat")
	// ErrReportsFull: the task has the most reports it may have.
	ErrReportsFull = errors.New("the task holds the most progress reports it may; report it done or ask for a new task")
	// ErrTooManyTasks: the assignee holds the most open tasks it may.
	ErrTooManyTasks = errors.New("the assignee holds the most open tasks it may; finish some first")
	// ErrIllegalState: a report that moves a task to a state it cannot take.
	ErrIllegalState = errors.New("illegal task state")
	// ErrSelfAssignment: a persona never assigns itself a task.
	ErrSelfAssignment = errors.New("a persona cannot assign itself a task")
	// ErrTaskExists: the task id is taken by a task of another assignee.
	ErrTaskExists = errors.New("a task with that id is assigned to another persona; choose another id")
)

// Party is one end of a task: a persona generation (ID and address), or a
// human (ID is the principal, "human:henry", Address empty).
type Party struct {
	ID         string `json:"id"`
	Address    string `json:"address,omitempty"`
	Generation int    `json:"generation,omitempty"`
	Name       string `json:"name,omitempty"`
}

// Report is one progress report of the assignee, or one change the
// assigner's side made (a cancellation, a reassignment).
type Report struct {
	At time.Time `json:"at"`
	// By is who wrote it: the generation that reported (a seat's new
	// generation takes over its tasks), or who cancelled or reassigned.
	By       Party    `json:"by,omitzero"`
	Progress string   `json:"progress"`
	Evidence []string `json:"evidence,omitempty"`
	// State is the state the report moved the task to ("" when unchanged).
	State string `json:"state,omitempty"`
}

// Task is one task record.
type Task struct {
	ID       string   `json:"id"`
	Scope    string   `json:"scope"`
	Project  string   `json:"project,omitempty"`
	Assignee Party    `json:"assignee"`
	By       Party    `json:"assigned_by"`
	Title    string   `json:"title"`
	Brief    string   `json:"brief"`
	Bounds   []string `json:"bounds,omitempty"`
	State    string   `json:"state"`
	Reports  []Report `json:"reports,omitempty"`
	// CorrelationID is the call that created it (the id derives from it).
	CorrelationID string    `json:"correlation_id,omitempty"`
	Created       time.Time `json:"created"`
	Updated       time.Time `json:"updated"`
}

// Target is the task as an operation target: scope and project from the
// record.
func (t Task) Target() confirm.Target {
	return confirm.Target{Kind: confirm.TargetTask, Scope: t.Scope, Project: t.Project, Value: t.ID}
}

// Final reports whether the task takes no more reports.
func (t Task) Final() bool { return t.State == StateDone || t.State == StateCancelled }

// States are a task's states, for a list's filter; ReportStates are those
// a report may move a task to.
var (
	States       = []string{StateAssigned, StateInProgress, StateBlocked, StateDone, StateCancelled}
	ReportStates = []string{StateInProgress, StateBlocked, StateDone}
)

// moves is the state machine: the states a report may move a task to.
var moves = map[string][]string{
	StateAssigned:   {StateInProgress, StateBlocked, StateDone},
	StateInProgress: {StateInProgress, StateBlocked, StateDone},
	StateBlocked:    {StateInProgress, StateBlocked, StateDone},
}

func keyRecord(id string) string { return PrefixRecord + id }

// key is the party as an index key: its seat, or a human's principal.
func (p Party) key() string {
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
func Get(ctx context.Context, st store.Store, id string) (Task, store.KV, error) {
	kv, err := st.Get(ctx, keyRecord(id))
	if errors.Is(err, store.ErrNotFound) {
		return Task{}, kv, fmt.Errorf("task %s: %w", id, ErrNoTask)
	}
	if err != nil {
		return Task{}, kv, fmt.Errorf("task %s: %w", id, err)
	}
	var t Task
	if err := json.Unmarshal(kv.Value, &t); err != nil {
		return Task{}, kv, fmt.Errorf("task %s: %w: %v", id, store.ErrCorrupt, err)
	}
	return t, kv, nil
}

// PlanAssign plans recording t (its ID, scope, project, parties, title,
// brief and bounds filled in by the caller) as a new task assigned at now,
// with its two index entries, guarded on the id being new. A task with
// the same id and assignee already stored is answered as it is and
// nothing is planned (a tool call's id derives from the call, so this is
// its retry); one of another assignee is ErrTaskExists.
func PlanAssign(ctx context.Context, st store.Store, t Task, now time.Time) (Task, store.Plan, error) {
	if t.Assignee.ID == t.By.ID {
		return Task{}, store.Plan{}, fmt.Errorf("%s: %w", t.Assignee.Address, ErrSelfAssignment)
	}
	if old, _, err := Get(ctx, st, t.ID); err == nil {
		if old.Assignee.Address != t.Assignee.Address {
			return Task{}, store.Plan{}, fmt.Errorf("task %s (%s's): %w", t.ID, old.Assignee.Address, ErrTaskExists)
		}
		return old, store.Plan{}, nil
	} else if !errors.Is(err, ErrNoTask) {
		return Task{}, store.Plan{}, err
	}
	kvs, more, err := st.Range(ctx, indexPrefix(prefixAssigned, t.Assignee.key()), "", MaxTasksPerAssignee)
	if err != nil {
		return Task{}, store.Plan{}, err
	}
	if more || len(kvs) >= MaxTasksPerAssignee {
		return Task{}, store.Plan{}, fmt.Errorf("%s: %w (%d)", t.Assignee.Address, ErrTooManyTasks, MaxTasksPerAssignee)
	}
	t.State, t.Created, t.Updated = StateAssigned, now, now
	val, err := json.Marshal(t)
	if err != nil {
		return Task{}, store.Plan{}, err
	}
	rec := keyRecord(t.ID)
	return t, store.Plan{Conds: []store.Cond{{Key: rec}}, Ops: []store.Op{
		store.Put(rec, val),
		store.Put(indexKey(prefixAssigned, t.Assignee.key(), now, t.ID), []byte(t.ID)),
		store.Put(indexKey(prefixGiven, t.By.key(), now, t.ID), []byte(t.ID)),
	}}, nil
}

// PlanReport plans the report r on task id by the holder of the task's
// seat (r.By; the caller admits it as the seat's active holder), guarded on
// the task as read: only the seat's holder reports, a finished task takes
// none, a state moves only as the state machine allows, and the reports
// are bounded (a report finishing the task is always taken). A new
// generation of the seat reporting becomes the task's assignee.
func PlanReport(ctx context.Context, st store.Store, id string, r Report) (Task, store.Plan, error) {
	t, kv, err := Get(ctx, st, id)
	if err != nil {
		return Task{}, store.Plan{}, err
	}
	switch {
	case r.By.Address == "" || t.Assignee.Address != r.By.Address:
		return Task{}, store.Plan{}, fmt.Errorf("task %s is %s's: %w", id, t.Assignee.Address, ErrNotAssignee)
	case t.Final():
		return Task{}, store.Plan{}, fmt.Errorf("task %s is %s: %w", id, t.State, ErrTaskFinished)
	case r.State != "" && !slices.Contains(moves[t.State], r.State):
		return Task{}, store.Plan{}, fmt.Errorf("task %s from %s to %q: %w (it may move to %v)", id, t.State, r.State, ErrIllegalState, moves[t.State])
	case len(t.Reports) >= MaxReports && r.State != StateDone:
		return Task{}, store.Plan{}, fmt.Errorf("task %s: %w (%d)", id, ErrReportsFull, MaxReports)
	}
	if r.State != "" {
		t.State = r.State
	} else if t.State == StateAssigned {
		t.State = StateInProgress
	}
	t.Assignee = r.By
	t.Reports = append(t.Reports, r)
	t.Updated = r.At
	return t, putPlan(t, kv), nil
}

// putPlan plans writing t over its record kv, guarded on kv as read.
func putPlan(t Task, kv store.KV) store.Plan {
	val, err := json.Marshal(t)
	if err != nil {
		panic(fmt.Sprintf("tasks: encode task %s: %v", t.ID, err)) // a task of plain values always marshals
	}
	return store.Plan{Conds: []store.Cond{{Key: kv.Key, ModRev: kv.ModRev}}, Ops: []store.Op{store.Put(kv.Key, val)}}
}

// change checks a change by the assigner's side to task t: not finished,
// with a reason, within the bound of reports (a change is one).
func change(t Task, r Report) error {
	switch {
	case t.Final():
		return fmt.Errorf("task %s is %s: %w", t.ID, t.State, ErrTaskFinished)
	case strings.TrimSpace(r.Progress) == "":
		return fmt.Errorf("task %s: %w", t.ID, ErrNoReason)
	}
	return nil
}

// PlanCancel plans cancelling task id (r.By, r.At and the reason in
// r.Progress): its state becomes cancelled, final, and its reports and
// runs stay. The caller has decided r.By may (the task's scope).
func PlanCancel(ctx context.Context, st store.Store, id string, r Report) (Task, store.Plan, error) {
	t, kv, err := Get(ctx, st, id)
	if err != nil {
		return Task{}, store.Plan{}, err
	}
	if err := change(t, r); err != nil {
		return Task{}, store.Plan{}, err
	}
	r.State, r.Progress = StateCancelled, "cancelled: "+r.Progress
	t.State, t.Updated = StateCancelled, r.At
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
func PlanReassign(ctx context.Context, st store.Store, id string, to Party, r Report) (Task, Party, store.Plan, error) {
	t, kv, err := Get(ctx, st, id)
	if err != nil {
		return Task{}, Party{}, store.Plan{}, err
	}
	if err := change(t, r); err != nil {
		return Task{}, Party{}, store.Plan{}, err
	}
	if to.Address == t.Assignee.Address {
		return Task{}, Party{}, store.Plan{}, fmt.Errorf("task %s, %s: %w", id, to.Address, ErrSameAssignee)
	}
	kvs, more, err := st.Range(ctx, indexPrefix(prefixAssigned, to.key()), "", MaxTasksPerAssignee)
	if err != nil {
		return Task{}, Party{}, store.Plan{}, err
	}
	if more || len(kvs) >= MaxTasksPerAssignee {
		return Task{}, Party{}, store.Plan{}, fmt.Errorf("%s: %w (%d)", to.Address, ErrTooManyTasks, MaxTasksPerAssignee)
	}
	from := t.Assignee
	r.State, r.Progress = StateAssigned, fmt.Sprintf("reassigned from %s to %s: %s", from.Address, to.Address, r.Progress)
	t.Assignee, t.State, t.Updated = to, StateAssigned, r.At
	t.Reports = append(t.Reports, r)
	plan := putPlan(t, kv)
	plan.Ops = append(plan.Ops,
		store.Op{Key: indexKey(prefixAssigned, from.key(), t.Created, t.ID), Delete: true},
		store.Put(indexKey(prefixAssigned, to.key(), t.Created, t.ID), []byte(t.ID)))
	return t, from, plan, nil
}

// PlanRemove plans deleting task id and its index entries, guarded on the
// task as read (the assignment endpoint's removal).
func PlanRemove(ctx context.Context, st store.Store, id string) (Task, store.Plan, error) {
	t, kv, err := Get(ctx, st, id)
	if err != nil {
		return Task{}, store.Plan{}, err
	}
	return t, store.Plan{Conds: []store.Cond{{Key: kv.Key, ModRev: kv.ModRev}}, Ops: []store.Op{
		{Key: kv.Key, Delete: true},
		{Key: indexKey(prefixAssigned, t.Assignee.key(), t.Created, t.ID), Delete: true},
		{Key: indexKey(prefixGiven, t.By.key(), t.Created, t.ID), Delete: true},
	}}, nil
}

// Side says which of a party's tasks a list reads.
type Side string

// The two sides of a party's tasks.
const (
	// AssignedTo: the tasks assigned to the party.
	AssignedTo Side = "assigned-to-me"
	// AssignedBy: the tasks the party assigned.
	AssignedBy Side = "assigned-by-me"
)

// List reads one page of a party's tasks on side (party: a seat's
// address, or a human's principal), in assignment order, continuing after
// token (paging's form); state, when set, keeps only tasks in that state.
func List(ctx context.Context, st store.Store, party string, side Side, state, token string, limit int) (paging.Page[Task], error) {
	prefix := indexPrefix(prefixAssigned, party)
	if side == AssignedBy {
		prefix = indexPrefix(prefixGiven, party)
	}
	return pager.Read(ctx, st, prefix, token, limit, func(kv store.KV) (Task, bool, error) {
		t, _, err := Get(ctx, st, string(kv.Value))
		if err != nil {
			return Task{}, false, err
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
