// Package tasks owns task records: a bounded piece of work a lead (or a
// secretary or coordinator within its subtree, or the bound human) assigns
// to a persona's seat, with the assignee's progress reports and their
// evidence. A task belongs to the seat, not the generation: a new
// generation of the seat inherits its open tasks (admission resolves to the
// seat's active holder, and the first report of the new holder makes it
// the task's assignee), so work is never orphaned by a retirement. A
// deputy's scope is the set of tasks assigned to its seat (board.Assigned, fed
// to confirm.Options.Assignments). The assigner's side may cancel or
// reassign a task, with a reason; its reports stay.
//
// The package holds the record's values, states, bounds and named errors;
// tasks/board reads the store and plans writes (store.Plan), and keeps the
// record's own rules: the assignee is the one who reports, the states move
// only forward, and nothing grows without bound. Who may assign or report
// is decided before, by confirm.Authorize under the caller's stamp (the
// task's scope and project are the stored record's).
package tasks

import (
	"errors"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
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

// Side says which of a party's tasks a list reads.
type Side string

// The two sides of a party's tasks.
const (
	// AssignedTo: the tasks assigned to the party.
	AssignedTo Side = "assigned-to-me"
	// AssignedBy: the tasks the party assigned.
	AssignedBy Side = "assigned-by-me"
)
