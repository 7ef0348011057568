// Package runs owns the runs of tasks: a run belongs to one task, moves
// through a documented state machine (state.go), keeps an append-only,
// bounded log of events, and records the artifacts it produced (name, size,
// sha256 and workspace path).
//
// The package reads the store and plans writes (store.Plan); the use case
// that calls it joins its audit entry and commits the one transaction.
// Who may touch which run is not decided here: confirm.Authorize decides it
// under the caller's stamp, with the run's scope, project and task taken
// from the stored record.
package runs

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
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
	// MaxText bounds an event's text, in bytes.
	MaxText = 4096
	// MaxArtifactName bounds an artifact's name, in bytes.
	MaxArtifactName = 256
	// MaxArtifactSize is the largest size an artifact may declare (1 TiB).
	MaxArtifactSize = int64(1) << 40
	// MaxPage is the most records one page of a list returns.
	MaxPage = 500
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
	ErrBadDigest        = errors.New("an artifact's sha256 is 64 lower-case hexadecimal digits")
	ErrBadSize          = errors.New("an artifact's size is out of range")
	ErrEmptyText        = errors.New("a required text is empty")
	ErrBadRef           = errors.New("malformed run or task reference")
	ErrBadCursor        = errors.New("malformed list cursor")
)

// TaskRef names a task: its scope, project and id.
type TaskRef struct {
	Scope   string `json:"scope"`
	Project string `json:"project"`
	Task    string `json:"task"`
}

// String is the task in confirm's target form without its kind:
// scope/project/task.
func (t TaskRef) String() string { return t.Scope + "/" + t.Project + "/" + t.Task }

// ParseTaskRef reads "scope/project/task", normalized as confirm does.
func ParseTaskRef(s string) (TaskRef, error) {
	t, err := confirm.ParseTarget("task:" + s)
	if err != nil {
		return TaskRef{}, fmt.Errorf("task %q: %w (%w)", s, ErrBadRef, err)
	}
	return TaskRef{Scope: t.Scope, Project: t.Project, Task: t.Value}, nil
}

// Ref names a run: its task and its id ("r-" and a number).
type Ref struct {
	TaskRef
	Run string `json:"run"`
}

// String is scope/project/task/run.
func (r Ref) String() string { return r.TaskRef.String() + "/" + r.Run }

// Target is the run as confirm's operation target, built from the stored
// record, never from a caller's arguments.
func (r Ref) Target() confirm.Target {
	return confirm.Target{Kind: confirm.TargetRun, Scope: r.Scope, Project: r.Project, Task: r.Task, Value: r.Run}
}

// ParseRef reads "scope/project/task/run".
func ParseRef(s string) (Ref, error) {
	t, err := confirm.ParseTarget("run:" + s)
	if err != nil {
		return Ref{}, fmt.Errorf("run %q: %w (%w)", s, ErrBadRef, err)
	}
	r := Ref{TaskRef: TaskRef{Scope: t.Scope, Project: t.Project, Task: t.Task}, Run: t.Value}
	if _, err := runNumber(r.Run); err != nil {
		return Ref{}, err
	}
	return r, nil
}

// runID is the id of a task's n-th run.
func runID(n int) string { return "r-" + strconv.Itoa(n) }

// runNumber reads a run id back.
func runNumber(id string) (int, error) {
	digits, ok := strings.CutPrefix(id, "r-")
	n, err := strconv.Atoi(digits)
	if !ok || err != nil || n < 1 || n > MaxRunsPerTask || runID(n) != id {
		return 0, fmt.Errorf("run id %q: %w: a run id is r-1 to r-%d", id, ErrBadRef, MaxRunsPerTask)
	}
	return n, nil
}

// Run is the record of one run.
type Run struct {
	Ref
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

// EventKind says what an event records.
type EventKind string

// The kinds of event.
const (
	// EventNote is progress the run's worker wrote.
	EventNote EventKind = "note"
	// EventMove is a state move (From → To), with the mover's note.
	EventMove EventKind = "move"
)

// Event is one entry of a run's append-only log.
type Event struct {
	Seq  int               `json:"seq"`
	Time time.Time         `json:"time"`
	By   confirm.Principal `json:"by"`
	Kind EventKind         `json:"kind"`
	Text string            `json:"text,omitempty"`
	From State             `json:"from,omitempty"`
	To   State             `json:"to,omitempty"`
}

// Artifact is one thing a run produced, in the worker's workspace.
type Artifact struct {
	Seq    int    `json:"seq"`
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	// Path is the workspace-relative clean path (confirm.NormalizePath).
	Path string            `json:"path"`
	By   confirm.Principal `json:"by"`
	Time time.Time         `json:"time"`
}
