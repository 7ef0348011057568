package usecase

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/runs"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/tasks"
)

// The executors of the runs tools (rows of the executor table). Who may
// reach which run Authorize has decided under the caller's stamp, with the
// run's scope, project and task read from the stored records; they keep
// the record's own rules (internal/runs: the state machine, the bounds).

// ErrTaskFinished: a run is started only on a task that is not done or
// cancelled.
var ErrTaskFinished = errors.New("the task is finished: it takes no new runs")

// runBook is the runs of u's store on the call's clock.
func runBook(u *Cases, c Call) *runs.Book {
	return runs.NewBook(u.st, func() time.Time { return c.Now })
}

// createRun is create_run: a pending run of the stored task the target
// names, with the id the tool table derived from the correlation id.
func createRun(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	t := c.Operation.Target
	task, _, err := tasks.Get(ctx, u.st, t.Task)
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

// recordArtifact is record_artifact: an artifact of the run.
func recordArtifact(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	size, _ := c.Args.Int("size")
	return runBook(u, c).PlanArtifact(ctx, c.Operation.Target.Value, c.Actor,
		runs.Artifact{Name: c.Args.Str("name"), Size: size, SHA256: c.Args.Str("sha256"), Path: c.Args.Str("path")})
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
	return runs.NewBook(u.st, nil).Target(ctx, id)
}
