package usecase

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/runs"
	"github.com/virgo-hub/virgo-tui/internal/runs/journal"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/tasks/board"
	"github.com/virgo-hub/virgo-tui/internal/termtext"
	"github.com/virgo-hub/virgo-tui/internal/workspace"
)

// The executors of the runs tools (rows of the executor table). Who may
// reach which run Authorize has decided under the caller's stamp, with the
// run's scope, project and task read from the stored records; they keep
// the record's own rules (internal/runs: the state machine, the bounds).

// ErrTaskFinished: a run is started only on a task that is not done or
// cancelled.
var ErrTaskFinished = errors.New("the task is finished: it takes no new runs")

// runBook is the runs of u's store on the call's clock.
func runBook(u *Cases, c Call) *journal.Book {
	return journal.NewBook(u.st, func() time.Time { return c.Now })
}

// createRun is create_run: a pending run of the stored task the target
// names, with the id the tool table derived from the correlation id.
func createRun(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	t := c.Operation.Target
	task, _, err := board.Get(ctx, u.st, t.Task)
	if err != nil {
		return nil, store.Plan{}, err
	}
	if task.Final() {
		return nil, store.Plan{}, fmt.Errorf("task %s (%s): %w", task.ID, task.State, ErrTaskFinished)
	}
	return runBook(u, c).PlanCreate(ctx, t.Value, runs.TaskRef{Scope: t.Scope, Project: t.Project, Task: t.Task},
		c.Actor, c.Args.Str("title"))
}

// advanceRun is advance_run: the run's move to the state named.
func advanceRun(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	to, err := runs.ParseState(c.Args.Str("state"))
	if err != nil {
		return nil, store.Plan{}, err
	}
	return runBook(u, c).PlanAdvance(ctx, c.Operation.Target.Value, c.Actor, to, c.Args.Str("note"))
}

// appendRunEvent is append_run_event: a note on the run's log.
func appendRunEvent(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	return runBook(u, c).PlanEvent(ctx, c.Operation.Target.Value, c.Actor, c.Args.Str("kind"), c.Args.Str("text"))
}

// ErrArtifactChanged: the artifact's file is not what was recorded.
var ErrArtifactChanged = errors.New("the artifact's file changed since it was recorded; record it again under a new name")

// workspaceOf opens the workspace of the seat at address as the hub keeps
// it (the persona's own, in this home).
func (u *Cases) workspaceOf(address string) (*workspace.Root, error) {
	return workspace.Open(workspace.HomeDir(u.home.Dir, address), nil)
}

// recordArtifact is record_artifact: a file of the caller's workspace as
// an artifact of the run, its size and sha256 computed here from the file
// (opened once through the workspace's safe open, judged by the secret
// table), never taken from the caller. A file that is not there is
// refused (workspace.ErrNotFound).
func recordArtifact(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	root, err := u.workspaceOf(c.Persona.Address)
	if err != nil {
		return nil, store.Plan{}, fmt.Errorf("record artifact %q: %w", c.Args.Str("name"), err)
	}
	defer root.Close()
	d, err := root.Hash(c.Args.Str("path"))
	if err != nil {
		return nil, store.Plan{}, fmt.Errorf("record artifact %q: %w", c.Args.Str("name"), err)
	}
	return runBook(u, c).PlanArtifact(ctx, c.Operation.Target.Value, c.Actor,
		runs.Artifact{Name: c.Args.Str("name"), Size: d.Size, SHA256: d.SHA256, Path: d.Path, Workspace: c.Persona.Address})
}

// ArtifactPage is one ranged read of an artifact (read_artifact_v1): the
// record and the bytes, as text when they are clean text, else as base64.
type ArtifactPage struct {
	Artifact runs.Artifact `json:"artifact"`
	confirm.Range
	Text string `json:"text,omitempty"`
	Data []byte `json:"data,omitempty"`
}

// readArtifact is read_artifact_v1: a byte range of the artifact the run
// records under the name, read from the workspace of the seat that
// recorded it under the same secret table as every read; whoever the
// run's scope allows reads it (Authorize decided on the run). A file whose
// size is not the recorded one, or whose bytes read whole do not hash to
// the recorded sha256, is refused (ErrArtifactChanged).
func readArtifact(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	id, name := c.Operation.Target.Value, c.Args.Str("name")
	arts, err := runBook(u, c).Artifacts(ctx, id)
	if err != nil {
		return nil, store.Plan{}, err
	}
	i := slices.IndexFunc(arts, func(a runs.Artifact) bool { return a.Name == name })
	if i < 0 {
		return nil, store.Plan{}, fmt.Errorf("run %s, artifact %q: %w", id, name, runs.ErrNoArtifact)
	}
	a := arts[i]
	root, err := u.workspaceOf(a.Workspace)
	if err != nil {
		return nil, store.Plan{}, fmt.Errorf("artifact %q: %w", name, err)
	}
	defer root.Close()
	offset, _ := c.Args.Int("offset")
	length, _ := c.Args.Int("length")
	page, err := root.Read(a.Path, offset, length)
	if err != nil {
		return nil, store.Plan{}, fmt.Errorf("artifact %q: %w", name, err)
	}
	if page.Size != a.Size {
		return nil, store.Plan{}, fmt.Errorf("artifact %q (%s): %d bytes now, %d recorded: %w", name, a.Path, page.Size, a.Size, ErrArtifactChanged)
	}
	if page.Offset == 0 && page.EOF {
		if sum := sha256.Sum256(page.Data); "sha256:"+hex.EncodeToString(sum[:]) != a.SHA256 {
			return nil, store.Plan{}, fmt.Errorf("artifact %q (%s): %w", name, a.Path, ErrArtifactChanged)
		}
	}
	out := ArtifactPage{Artifact: a, Range: page.Range}
	if termtext.Check(string(page.Data), true) == nil {
		out.Text = string(page.Data)
	} else {
		out.Data = page.Data
	}
	return out, store.Plan{}, nil
}

// listRuns is list_runs: a page of the stored task's runs.
func listRuns(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	limit, _ := c.Args.Int("limit")
	page, err := runBook(u, c).List(ctx, c.Operation.Target.Value, c.Args.Str("after"), int(limit))
	return page, store.Plan{}, err
}

// RunView is a run with the first page of its log and its artifacts, as
// get_run answers it.
type RunView struct {
	runs.Run
	Log         paging.Page[runs.Event] `json:"log"`
	ArtifactSet []runs.Artifact         `json:"artifact_list"`
}

// getRun is get_run: the run, the first page of its log, its artifacts.
func getRun(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	b := runBook(u, c)
	id := c.Operation.Target.Value
	run, _, err := b.Get(ctx, id)
	if err != nil {
		return nil, store.Plan{}, err
	}
	log, err := b.Events(ctx, id, "", 0)
	if err != nil {
		return nil, store.Plan{}, err
	}
	arts, err := b.Artifacts(ctx, id)
	if err != nil {
		return nil, store.Plan{}, err
	}
	if arts == nil {
		arts = []runs.Artifact{}
	}
	return RunView{Run: run, Log: log, ArtifactSet: arts}, store.Plan{}, nil
}

// locateRun is the tool table's look-up of a stored run's target.
func locateRun(ctx context.Context, u *Cases, id string) (confirm.Target, error) {
	return journal.NewBook(u.st, nil).Target(ctx, id)
}
