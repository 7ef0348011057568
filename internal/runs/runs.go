// Package runs owns the runs of tasks: a run belongs to one task, moves
// through a documented state machine (state.go), keeps an append-only,
// bounded log of events, and records the artifacts it produced (name, size,
// sha256 and workspace path).
//
// The package holds the values, the state machine, the bounds and the
// named errors; runs/journal reads the store and plans writes
// (store.Plan), which the use case that calls it joins with its audit
// entry and commits in one transaction.
// Who may touch which run is not decided here: confirm.Authorize decides it
// under the caller's stamp, with the run's scope, project and task taken
// from the stored record.
package runs

import (
	"errors"
	"fmt"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
)

// The bounds of a run: nothing a persona writes grows without limit.
const (
	// MaxRunsPerTask bounds the runs one task may have.
	MaxRunsPerTask = 10000
	// MaxEvents bounds a run's event log. A move to a final state is
	// always logged (one past the bound at most), so a full log never
	// keeps a run from finishing.
	MaxEvents = 1000
	// MaxArtifacts bounds a run's artifacts.
	MaxArtifacts = 256
	// MaxTitle bounds a run's title, in bytes.
	MaxTitle = 256
	// MaxText bounds an event's text or a move's note, in bytes.
	MaxText = 4 << 10
	// MaxArtifactName bounds an artifact's name, in bytes.
	MaxArtifactName = 256
	// MaxArtifactSize is the largest size an artifact may declare (1 PiB,
	// the tool schema's bound).
	MaxArtifactSize = int64(1) << 50
)

// Named errors of runs; each message says what to do.
var (
	ErrRunNotFound      = errors.New("no such run")
	ErrUnknownState     = errors.New("unknown run state")
	ErrIllegalMove      = errors.New("illegal run state move")
	ErrRunFinished      = errors.New("the run is finished: it takes no more events or artifacts; start a new run")
	ErrTooManyRuns      = errors.New("the task has the most runs it may have")
	ErrEventLogFull     = errors.New("the run's event log is full; finish the run or start a new one")
	ErrTooManyArtifacts = errors.New("the run has the most artifacts it may have; start a new run")
	ErrArtifactExists   = errors.New("the run already records an artifact of that name")
	ErrNoArtifact       = errors.New("the run records no artifact of that name; get_run lists its artifacts")
	ErrBadDigest        = errors.New("an artifact's sha256 is \"sha256:\" and 64 lower-case hexadecimal digits")
	ErrBadSize          = errors.New("an artifact's size is out of range")
	ErrEmptyText        = errors.New("a required text is empty")
	ErrBadRef           = errors.New("malformed run or task id")
	ErrIDTaken          = errors.New("the run id names a run of another task")
	ErrReservedKind     = errors.New("event kind \"move\" is the state machine's; name the event otherwise")
)

// TaskRef names a task: its id, with the scope and project its stored
// record holds (the caller reads them from the task, never from a
// persona's arguments).
type TaskRef struct {
	Scope   string `json:"scope"`
	Project string `json:"project,omitempty"`
	Task    string `json:"task"`
}

// CheckID refuses a record id confirm would not normalize.
func CheckID(what, id string) error {
	if _, err := confirm.NormalizeID(id); err != nil {
		return fmt.Errorf("%s id %q: %w (%w)", what, id, ErrBadRef, err)
	}
	return nil
}

// Run is the record of one run.
type Run struct {
	// ID is the run's id, unique in the installation (the tool table
	// derives it from the creating call's correlation id).
	ID string `json:"id"`
	TaskRef
	// Seq numbers the run among its task's runs, from 1.
	Seq   int    `json:"seq"`
	Title string `json:"title"`
	State State  `json:"state"`
	// CreatedBy is who created the run: a persona address or human:<name>.
	CreatedBy confirm.Principal `json:"created_by"`
	Created   time.Time         `json:"created"`
	Updated   time.Time         `json:"updated"`
	// Events and Artifacts count what the run has logged and recorded.
	Events    int `json:"events"`
	Artifacts int `json:"artifacts"`
}

// The kinds of event the package names: a note's kind is the writer's
// label (an id: progress, output, error ...), "progress" when it gives
// none; "move" is reserved for the state machine's own entries.
const (
	// EventProgress is a note's kind when its writer names none.
	EventProgress = "progress"
	// EventMove is a state move (From → To), with the mover's note.
	EventMove = "move"
)

// Event is one entry of a run's append-only log.
type Event struct {
	Seq  int               `json:"seq"`
	Time time.Time         `json:"time"`
	By   confirm.Principal `json:"by"`
	Kind string            `json:"kind"`
	Text string            `json:"text,omitempty"`
	From State             `json:"from,omitempty"`
	To   State             `json:"to,omitempty"`
}

// Artifact is one thing a run produced, in the worker's workspace.
type Artifact struct {
	// Run is the run's id and TaskRef its task, as the run records them.
	Run string `json:"run"`
	TaskRef
	Seq    int    `json:"seq"`
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	// Path is the workspace-relative clean path (confirm.NormalizePath)
	// in the workspace of the seat Workspace names (the recorder's).
	Path      string            `json:"path"`
	Workspace string            `json:"workspace"`
	By        confirm.Principal `json:"by"`
	Time      time.Time         `json:"time"`
}

// Target is the run as confirm's operation target, built from the stored
// record, never from a caller's arguments.
func (r Run) Target() confirm.Target {
	return confirm.Target{Kind: confirm.TargetRun, Scope: r.Scope, Project: r.Project, Task: r.Task, Value: r.ID}
}
