// Package journal is the stored book of runs (internal/runs holds the
// run, its state machine and its values): each run's record, its
// append-only, bounded event log and its artifacts, read and changed by
// planned writes (store.Plan) that the use case calling it joins with its
// audit entry and commits in one transaction.
package journal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/paging/pager"
	"github.com/virgo-hub/virgo-tui/internal/runs"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
	"github.com/virgo-hub/virgo-tui/internal/termtext"
)

// The store layout of runs. Numbers in keys are zero-padded so that key
// order is creation order.
const (
	// Prefix holds every key of this package.
	Prefix = "runs/"
	// PrefixRun holds the run records, by run id.
	PrefixRun = Prefix + "run/"
	// prefixSeq: the number of runs a task has had (decimal text), by
	// task id.
	prefixSeq = Prefix + "seq/"
	// prefixByTask: a task's runs in creation order, by task id and
	// number; the value is the run id.
	prefixByTask = Prefix + "task/"
	// PrefixEvent holds a run's events, by run id and sequence number.
	PrefixEvent = Prefix + "event/"
	// PrefixArtifact holds a run's artifacts, by run id and number.
	PrefixArtifact = Prefix + "artifact/"
)

func keyRun(id string) string   { return PrefixRun + id }
func keySeq(task string) string { return prefixSeq + task }
func keyByTask(task string, n int) string {
	return fmt.Sprintf("%s%s/%05d", prefixByTask, task, n)
}
func keyEvent(id string, seq int) string    { return fmt.Sprintf("%s%s/%05d", PrefixEvent, id, seq) }
func keyArtifact(id string, seq int) string { return fmt.Sprintf("%s%s/%04d", PrefixArtifact, id, seq) }

// Book reads runs from a store and plans their changes. It is safe for
// concurrent use; every plan is guarded by the revisions it read, so two
// writers never both succeed on the same view.
type Book struct {
	st  store.Store
	now func() time.Time
}

// NewBook returns a Book over st; now is its clock (time.Now when nil).
func NewBook(st store.Store, now func() time.Time) *Book {
	if now == nil {
		now = time.Now
	}
	return &Book{st: st, now: now}
}

// Get returns a run and the revision it was read at.
func (b *Book) Get(ctx context.Context, id string) (runs.Run, int64, error) {
	if err := runs.CheckID("run", id); err != nil {
		return runs.Run{}, 0, err
	}
	var run runs.Run
	rev, err := store.GetJSON(ctx, b.st, keyRun(id), &run)
	switch {
	case err != nil:
		return runs.Run{}, 0, err
	case rev == 0:
		return runs.Run{}, 0, fmt.Errorf("run %s: %w", id, runs.ErrRunNotFound)
	}
	return run, rev, nil
}

// Target is the stored run id's operation target (its scope, project and
// task as recorded), or ErrRunNotFound.
func (b *Book) Target(ctx context.Context, id string) (confirm.Target, error) {
	run, _, err := b.Get(ctx, id)
	return run.Target(), err
}

// List reads one page of the task's runs in creation order, continuing
// after token (paging's form: "" for the first page, then the previous
// page's Next), at most limit (paging.Limit's rules) runs.
func (b *Book) List(ctx context.Context, task, token string, limit int) (paging.Page[runs.Run], error) {
	if err := runs.CheckID("task", task); err != nil {
		return paging.Page[runs.Run]{}, err
	}
	return pager.Read(ctx, b.st, prefixByTask+task+"/", token, limit, func(kv store.KV) (runs.Run, bool, error) {
		run, _, err := b.Get(ctx, string(kv.Value))
		return run, err == nil, err
	})
}

// Events reads one page of the run's events in order, continuing after
// token (paging's form).
func (b *Book) Events(ctx context.Context, id, token string, limit int) (paging.Page[runs.Event], error) {
	if err := runs.CheckID("run", id); err != nil {
		return paging.Page[runs.Event]{}, err
	}
	return pager.Read(ctx, b.st, PrefixEvent+id+"/", token, limit, decodeKV[runs.Event])
}

// Artifacts returns every artifact of the run (at most MaxArtifacts).
func (b *Book) Artifacts(ctx context.Context, id string) ([]runs.Artifact, error) {
	if err := runs.CheckID("run", id); err != nil {
		return nil, err
	}
	kvs, _, err := b.st.Range(ctx, PrefixArtifact+id+"/", "", runs.MaxArtifacts)
	if err != nil {
		return nil, fmt.Errorf("artifacts of run %s: %w", id, err)
	}
	out := make([]runs.Artifact, len(kvs))
	for i, kv := range kvs {
		if out[i], _, err = decodeKV[runs.Artifact](kv); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func decodeKV[T any](kv store.KV) (T, bool, error) {
	var v T
	if err := strictjson.DecodeOpen(kv.Value, &v); err != nil {
		return v, false, fmt.Errorf("record %s: %w", kv.Key, err)
	}
	return v, true, nil
}

// PlanCreate plans run id, a new pending run of task, created by by. The
// caller has checked that the task exists and may hold runs. Creating a
// run that exists for the same task again plans nothing and returns it (a
// retry under the same correlation id names the same run); an id of
// another task's run is refused.
func (b *Book) PlanCreate(ctx context.Context, id string, task runs.TaskRef, by confirm.Principal, title string) (runs.Run, store.Plan, error) {
	if err := runs.CheckID("run", id); err != nil {
		return runs.Run{}, store.Plan{}, err
	}
	if err := runs.CheckID("task", task.Task); err != nil {
		return runs.Run{}, store.Plan{}, err
	}
	if err := termtext.CheckField("title", title, runs.MaxTitle, false); err != nil {
		return runs.Run{}, store.Plan{}, err
	}
	if have, _, err := b.Get(ctx, id); err == nil {
		if have.TaskRef != task {
			return runs.Run{}, store.Plan{}, fmt.Errorf("run %s of task %s: %w", id, have.Task, runs.ErrIDTaken)
		}
		return have, store.Plan{}, nil
	} else if !errors.Is(err, runs.ErrRunNotFound) {
		return runs.Run{}, store.Plan{}, err
	}
	n, seqRev, err := b.count(ctx, task.Task)
	if err != nil {
		return runs.Run{}, store.Plan{}, err
	}
	now := b.now().UTC()
	run := runs.Run{ID: id, TaskRef: task, Seq: n + 1, Title: title, State: runs.StatePending, CreatedBy: by, Created: now, Updated: now}
	val, err := json.Marshal(run)
	if err != nil {
		return runs.Run{}, store.Plan{}, err
	}
	return run, store.Plan{
		Conds: []store.Cond{{Key: keySeq(task.Task), ModRev: seqRev}, {Key: keyRun(id)}},
		Ops: []store.Op{store.Put(keySeq(task.Task), strconv.AppendInt(nil, int64(run.Seq), 10)),
			store.Put(keyRun(id), val), store.Put(keyByTask(task.Task, run.Seq), []byte(id))},
	}, nil
}

// count is how many runs the task has had and the revision of its counter
// (0 when it has had none).
func (b *Book) count(ctx context.Context, task string) (int, int64, error) {
	kv, err := b.st.Get(ctx, keySeq(task))
	if errors.Is(err, store.ErrNotFound) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("read the run counter of task %s: %w", task, err)
	}
	n, err := strconv.Atoi(string(kv.Value))
	if err != nil {
		return 0, 0, fmt.Errorf("run counter of task %s: %w", task, err)
	}
	if n >= runs.MaxRunsPerTask {
		return 0, 0, fmt.Errorf("task %s: %w (%d)", task, runs.ErrTooManyRuns, runs.MaxRunsPerTask)
	}
	return n, kv.ModRev, nil
}

// PlanAdvance plans the run's move to state to, logged as an event with
// the mover's note.
func (b *Book) PlanAdvance(ctx context.Context, id string, by confirm.Principal, to runs.State, note string) (runs.Run, store.Plan, error) {
	if err := termtext.CheckField("note", note, runs.MaxText, true); err != nil {
		return runs.Run{}, store.Plan{}, err
	}
	run, rev, err := b.Get(ctx, id)
	if err != nil {
		return runs.Run{}, store.Plan{}, err
	}
	if err := runs.CheckMove(run.State, to); err != nil {
		return runs.Run{}, store.Plan{}, fmt.Errorf("run %s: %w", id, err)
	}
	if !to.Terminal() && run.Events >= runs.MaxEvents {
		return runs.Run{}, store.Plan{}, fmt.Errorf("run %s: %w (%d events)", id, runs.ErrEventLogFull, runs.MaxEvents)
	}
	ev := runs.Event{Kind: runs.EventMove, Text: note, From: run.State, To: to}
	run.State = to
	run, _, p, err := b.planAppend(run, rev, by, ev)
	return run, p, err
}

// PlanEvent plans a note of kind (an id; "" is EventProgress) appended to
// the run's log.
func (b *Book) PlanEvent(ctx context.Context, id string, by confirm.Principal, kind, text string) (runs.Event, store.Plan, error) {
	switch kind {
	case "":
		kind = runs.EventProgress
	case runs.EventMove:
		return runs.Event{}, store.Plan{}, fmt.Errorf("run %s: %w", id, runs.ErrReservedKind)
	}
	if err := runs.CheckID("event kind", kind); err != nil {
		return runs.Event{}, store.Plan{}, err
	}
	if err := termtext.CheckField("text", text, runs.MaxText, true); err != nil {
		return runs.Event{}, store.Plan{}, err
	}
	if text == "" {
		return runs.Event{}, store.Plan{}, fmt.Errorf("field \"text\": %w: an event says something", runs.ErrEmptyText)
	}
	run, rev, err := b.Get(ctx, id)
	if err != nil {
		return runs.Event{}, store.Plan{}, err
	}
	if run.State.Terminal() {
		return runs.Event{}, store.Plan{}, fmt.Errorf("run %s (%s): %w", id, run.State, runs.ErrRunFinished)
	}
	if run.Events >= runs.MaxEvents {
		return runs.Event{}, store.Plan{}, fmt.Errorf("run %s: %w (%d events)", id, runs.ErrEventLogFull, runs.MaxEvents)
	}
	_, ev, p, err := b.planAppend(run, rev, by, runs.Event{Kind: kind, Text: text})
	return ev, p, err
}

// planAppend plans run (changed by the caller) rewritten with one more
// event, guarded by the revision the run was read at.
func (b *Book) planAppend(run runs.Run, rev int64, by confirm.Principal, ev runs.Event) (runs.Run, runs.Event, store.Plan, error) {
	now := b.now().UTC()
	run.Events++
	run.Updated = now
	ev.Seq, ev.Time, ev.By = run.Events, now, by
	runVal, err := json.Marshal(run)
	if err != nil {
		return runs.Run{}, runs.Event{}, store.Plan{}, err
	}
	evVal, err := json.Marshal(ev)
	if err != nil {
		return runs.Run{}, runs.Event{}, store.Plan{}, err
	}
	return run, ev, store.Plan{
		Conds: []store.Cond{{Key: keyRun(run.ID), ModRev: rev}},
		Ops:   []store.Op{store.Put(keyRun(run.ID), runVal), store.Put(keyEvent(run.ID, ev.Seq), evVal)},
	}, nil
}

// sha256Digest is the one hash format of the installation: what the
// workspace tools, the human channel and artifacts all answer.
var sha256Digest = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// PlanArtifact plans an artifact recorded on the run: its name (unique in
// the run), size, sha256 and workspace path, which the caller computed
// from the file itself (never a persona's word).
func (b *Book) PlanArtifact(ctx context.Context, id string, by confirm.Principal, a runs.Artifact) (runs.Artifact, store.Plan, error) {
	if err := termtext.CheckField("name", a.Name, runs.MaxArtifactName, false); err != nil {
		return runs.Artifact{}, store.Plan{}, err
	}
	if a.Name == "" {
		return runs.Artifact{}, store.Plan{}, fmt.Errorf("field \"name\": %w: an artifact has a name", runs.ErrEmptyText)
	}
	if !sha256Digest.MatchString(a.SHA256) {
		return runs.Artifact{}, store.Plan{}, fmt.Errorf("artifact %q: %w", a.Name, runs.ErrBadDigest)
	}
	if a.Size < 0 || a.Size > runs.MaxArtifactSize {
		return runs.Artifact{}, store.Plan{}, fmt.Errorf("artifact %q: %w: %d bytes (0 to %d)", a.Name, runs.ErrBadSize, a.Size, runs.MaxArtifactSize)
	}
	path, err := confirm.NormalizePath(a.Path)
	if err != nil {
		return runs.Artifact{}, store.Plan{}, fmt.Errorf("artifact %q: %w", a.Name, err)
	}
	run, rev, err := b.Get(ctx, id)
	if err != nil {
		return runs.Artifact{}, store.Plan{}, err
	}
	if run.State.Terminal() {
		return runs.Artifact{}, store.Plan{}, fmt.Errorf("run %s (%s): %w", id, run.State, runs.ErrRunFinished)
	}
	if run.Artifacts >= runs.MaxArtifacts {
		return runs.Artifact{}, store.Plan{}, fmt.Errorf("run %s: %w (%d)", id, runs.ErrTooManyArtifacts, runs.MaxArtifacts)
	}
	have, err := b.Artifacts(ctx, id)
	if err != nil {
		return runs.Artifact{}, store.Plan{}, err
	}
	for _, h := range have {
		if h.Name == a.Name {
			return runs.Artifact{}, store.Plan{}, fmt.Errorf("run %s, artifact %q: %w", id, a.Name, runs.ErrArtifactExists)
		}
	}
	now := b.now().UTC()
	run.Artifacts++
	run.Updated = now
	a.Run, a.TaskRef, a.Seq, a.Path, a.By, a.Time = run.ID, run.TaskRef, run.Artifacts, path, by, now
	runVal, err := json.Marshal(run)
	if err != nil {
		return runs.Artifact{}, store.Plan{}, err
	}
	aVal, err := json.Marshal(a)
	if err != nil {
		return runs.Artifact{}, store.Plan{}, err
	}
	return a, store.Plan{
		Conds: []store.Cond{{Key: keyRun(id), ModRev: rev}, {Key: keyArtifact(id, a.Seq)}},
		Ops:   []store.Op{store.Put(keyRun(id), runVal), store.Put(keyArtifact(id, a.Seq), aVal)},
	}, nil
}
