package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/termtext"
)

// The store layout of runs. Numbers in keys are zero-padded so that key
// order is creation order (r-2 before r-10).
const (
	// Prefix holds every key of this package.
	Prefix = "runs/"
	// prefixSeq: the next run number of a task (decimal text).
	prefixSeq = Prefix + "seq/"
	// prefixRun: a run record, by task and number.
	prefixRun = Prefix + "run/"
	// prefixEvent: a run's events, by run and sequence number.
	prefixEvent = Prefix + "event/"
	// prefixArtifact: a run's artifacts, by run and sequence number.
	prefixArtifact = Prefix + "artifact/"
)

func keySeq(t TaskRef) string { return prefixSeq + t.String() }

func keyRun(r Ref) string {
	n, _ := runNumber(r.Run)
	return fmt.Sprintf("%s%s/%05d", prefixRun, r.TaskRef, n)
}

func keyEvent(r Ref, seq int) string { return fmt.Sprintf("%s%s/%05d", prefixEvent, r, seq) }

func keyArtifact(r Ref, seq int) string { return fmt.Sprintf("%s%s/%04d", prefixArtifact, r, seq) }

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
func (b *Book) Get(ctx context.Context, r Ref) (Run, int64, error) {
	kv, err := b.st.Get(ctx, keyRun(r))
	if errors.Is(err, store.ErrNotFound) {
		return Run{}, 0, fmt.Errorf("run %s: %w", r, ErrRunNotFound)
	}
	if err != nil {
		return Run{}, 0, fmt.Errorf("read run %s: %w", r, err)
	}
	var run Run
	if err := json.Unmarshal(kv.Value, &run); err != nil {
		return Run{}, 0, fmt.Errorf("run %s: %w", r, err)
	}
	return run, kv.ModRev, nil
}

// List returns a page of the task's runs in creation order: at most limit
// (1 to MaxPage) runs after the run id after ("" for the first page), and
// the id to pass as after for the next page ("" when there is none).
func (b *Book) List(ctx context.Context, t TaskRef, after string, limit int) ([]Run, string, error) {
	from := ""
	if after != "" {
		if _, err := runNumber(after); err != nil {
			return nil, "", fmt.Errorf("%w: %w", ErrBadCursor, err)
		}
		from = keyRun(Ref{TaskRef: t, Run: after})
	}
	return page[Run](ctx, b.st, prefixRun+t.String()+"/", from, limit, func(r Run) string { return r.Run })
}

// Events returns a page of the run's events with a sequence number above
// after, and the cursor of the next page (0 when there is none).
func (b *Book) Events(ctx context.Context, r Ref, after, limit int) ([]Event, int, error) {
	if after < 0 {
		return nil, 0, fmt.Errorf("%w: event cursor %d", ErrBadCursor, after)
	}
	evs, next, err := page[Event](ctx, b.st, prefixEvent+r.String()+"/", keyEvent(r, after), limit,
		func(e Event) string { return fmt.Sprint(e.Seq) })
	if err != nil || next == "" {
		return evs, 0, err
	}
	return evs, evs[len(evs)-1].Seq, nil
}

// Artifacts returns every artifact of the run (at most MaxArtifacts).
func (b *Book) Artifacts(ctx context.Context, r Ref) ([]Artifact, error) {
	out, _, err := page[Artifact](ctx, b.st, prefixArtifact+r.String()+"/", "", MaxArtifacts, nil)
	return out, err
}

// page decodes the records under prefix with a key above from, at most
// limit of them, and the cursor (cursor of the last) when more follow.
func page[T any](ctx context.Context, st store.Store, prefix, from string, limit int, cursor func(T) string) ([]T, string, error) {
	if limit < 1 || limit > MaxPage {
		return nil, "", fmt.Errorf("%w: a page holds 1 to %d records, not %d", ErrBadCursor, MaxPage, limit)
	}
	kvs, err := st.List(ctx, prefix)
	if err != nil {
		return nil, "", fmt.Errorf("list %s: %w", prefix, err)
	}
	out := make([]T, 0, min(limit, len(kvs)))
	for i, kv := range kvs {
		if kv.Key <= from {
			continue
		}
		if len(out) == limit {
			return out, cursor(out[len(out)-1]), nil
		}
		var v T
		if err := json.Unmarshal(kv.Value, &v); err != nil {
			return nil, "", fmt.Errorf("record %s: %w", kvs[i].Key, err)
		}
		out = append(out, v)
	}
	return out, "", nil
}

// PlanCreate plans a new pending run of task t, created by by. The caller
// has checked that the task exists and may hold runs.
func (b *Book) PlanCreate(ctx context.Context, t TaskRef, by confirm.Principal, title string) (Run, store.Plan, error) {
	if err := termtext.CheckField("title", title, MaxTitle, false); err != nil {
		return Run{}, store.Plan{}, err
	}
	seq, seqRev, err := b.nextNumber(ctx, t)
	if err != nil {
		return Run{}, store.Plan{}, err
	}
	now := b.now().UTC()
	run := Run{Ref: Ref{TaskRef: t, Run: runID(seq)}, Title: title, State: StatePending, CreatedBy: by,
		Created: now, Updated: now}
	val, err := json.Marshal(run)
	if err != nil {
		return Run{}, store.Plan{}, err
	}
	p := store.Plan{
		Conds: []store.Cond{{Key: keySeq(t), ModRev: seqRev}, {Key: keyRun(run.Ref)}},
		Ops:   []store.Op{store.Put(keySeq(t), fmt.Append(nil, seq)), store.Put(keyRun(run.Ref), val)},
	}
	return run, p, nil
}

// nextNumber is the number of the task's next run and the revision of its
// counter (0 when the task has none yet).
func (b *Book) nextNumber(ctx context.Context, t TaskRef) (int, int64, error) {
	kv, err := b.st.Get(ctx, keySeq(t))
	if errors.Is(err, store.ErrNotFound) {
		return 1, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("read the run counter of %s: %w", t, err)
	}
	var last int
	if _, err := fmt.Sscan(string(kv.Value), &last); err != nil {
		return 0, 0, fmt.Errorf("run counter of %s: %w", t, err)
	}
	if last >= MaxRunsPerTask {
		return 0, 0, fmt.Errorf("task %s: %w (%d)", t, ErrTooManyRuns, MaxRunsPerTask)
	}
	return last + 1, kv.ModRev, nil
}

// PlanAdvance plans the run's move to state to, logged as an event with
// the mover's note.
func (b *Book) PlanAdvance(ctx context.Context, r Ref, by confirm.Principal, to State, note string) (Run, store.Plan, error) {
	if err := termtext.CheckField("note", note, MaxText, true); err != nil {
		return Run{}, store.Plan{}, err
	}
	run, rev, err := b.Get(ctx, r)
	if err != nil {
		return Run{}, store.Plan{}, err
	}
	if err := checkMove(run.State, to); err != nil {
		return Run{}, store.Plan{}, fmt.Errorf("run %s: %w", r, err)
	}
	if !to.Terminal() && run.Events >= MaxEvents {
		return Run{}, store.Plan{}, fmt.Errorf("run %s: %w (%d events)", r, ErrEventLogFull, MaxEvents)
	}
	ev := Event{Kind: EventMove, Text: note, From: run.State, To: to}
	run.State = to
	run, _, p, err := b.planAppend(run, rev, by, ev)
	return run, p, err
}

// PlanEvent plans a note appended to the run's log.
func (b *Book) PlanEvent(ctx context.Context, r Ref, by confirm.Principal, text string) (Event, store.Plan, error) {
	if err := termtext.CheckField("text", text, MaxText, true); err != nil {
		return Event{}, store.Plan{}, err
	}
	if text == "" {
		return Event{}, store.Plan{}, fmt.Errorf("field \"text\": %w: an event says something", ErrEmptyText)
	}
	run, rev, err := b.Get(ctx, r)
	if err != nil {
		return Event{}, store.Plan{}, err
	}
	if run.State.Terminal() {
		return Event{}, store.Plan{}, fmt.Errorf("run %s (%s): %w", r, run.State, ErrRunFinished)
	}
	if run.Events >= MaxEvents {
		return Event{}, store.Plan{}, fmt.Errorf("run %s: %w (%d events)", r, ErrEventLogFull, MaxEvents)
	}
	_, ev, p, err := b.planAppend(run, rev, by, Event{Kind: EventNote, Text: text})
	return ev, p, err
}

// planAppend plans run (changed by the caller) rewritten with one more
// event, guarded by the revision the run was read at.
func (b *Book) planAppend(run Run, rev int64, by confirm.Principal, ev Event) (Run, Event, store.Plan, error) {
	now := b.now().UTC()
	run.Events++
	run.Updated = now
	ev.Seq, ev.Time, ev.By = run.Events, now, by
	runVal, err := json.Marshal(run)
	if err != nil {
		return Run{}, Event{}, store.Plan{}, err
	}
	evVal, err := json.Marshal(ev)
	if err != nil {
		return Run{}, Event{}, store.Plan{}, err
	}
	p := store.Plan{
		Conds: []store.Cond{{Key: keyRun(run.Ref), ModRev: rev}},
		Ops:   []store.Op{store.Put(keyRun(run.Ref), runVal), store.Put(keyEvent(run.Ref, ev.Seq), evVal)},
	}
	return run, ev, p, nil
}

var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

// PlanArtifact plans an artifact recorded on the run: its name (unique in
// the run), size, sha256 and workspace path.
func (b *Book) PlanArtifact(ctx context.Context, r Ref, by confirm.Principal, a Artifact) (Artifact, store.Plan, error) {
	if err := termtext.CheckField("name", a.Name, MaxArtifactName, false); err != nil {
		return Artifact{}, store.Plan{}, err
	}
	if a.Name == "" {
		return Artifact{}, store.Plan{}, fmt.Errorf("field \"name\": %w: an artifact has a name", ErrEmptyText)
	}
	if !sha256Hex.MatchString(a.SHA256) {
		return Artifact{}, store.Plan{}, fmt.Errorf("artifact %q: %w", a.Name, ErrBadDigest)
	}
	if a.Size < 0 || a.Size > MaxArtifactSize {
		return Artifact{}, store.Plan{}, fmt.Errorf("artifact %q: %w: %d bytes (0 to %d)", a.Name, ErrBadSize, a.Size, MaxArtifactSize)
	}
	path, err := confirm.NormalizePath(a.Path)
	if err != nil {
		return Artifact{}, store.Plan{}, fmt.Errorf("artifact %q: %w", a.Name, err)
	}
	run, rev, err := b.Get(ctx, r)
	if err != nil {
		return Artifact{}, store.Plan{}, err
	}
	if run.State.Terminal() {
		return Artifact{}, store.Plan{}, fmt.Errorf("run %s (%s): %w", r, run.State, ErrRunFinished)
	}
	if run.Artifacts >= MaxArtifacts {
		return Artifact{}, store.Plan{}, fmt.Errorf("run %s: %w (%d)", r, ErrTooManyArtifacts, MaxArtifacts)
	}
	have, err := b.Artifacts(ctx, r)
	if err != nil {
		return Artifact{}, store.Plan{}, err
	}
	for _, h := range have {
		if h.Name == a.Name {
			return Artifact{}, store.Plan{}, fmt.Errorf("run %s, artifact %q: %w", r, a.Name, ErrArtifactExists)
		}
	}
	now := b.now().UTC()
	run.Artifacts++
	run.Updated = now
	a.Seq, a.Path, a.By, a.Time = run.Artifacts, path, by, now
	runVal, err := json.Marshal(run)
	if err != nil {
		return Artifact{}, store.Plan{}, err
	}
	aVal, err := json.Marshal(a)
	if err != nil {
		return Artifact{}, store.Plan{}, err
	}
	p := store.Plan{
		Conds: []store.Cond{{Key: keyRun(r), ModRev: rev}, {Key: keyArtifact(r, a.Seq)}},
		Ops:   []store.Op{store.Put(keyRun(r), runVal), store.Put(keyArtifact(r, a.Seq), aVal)},
	}
	return a, p, nil
}
