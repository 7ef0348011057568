package journal

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/runs"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
	"github.com/virgo-hub/virgo-tui/internal/termtext"
)

// openBook is a Book over a real bbolt file in t.TempDir().
func openBook(t *testing.T) (*Book, store.Store) {
	t.Helper()
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "virgo.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clock := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	return NewBook(st, func() time.Time { clock = clock.Add(time.Second); return clock }), st
}

var (
	deputy = confirm.PersonaPrincipal("work/core/deputy")
	task   = runs.TaskRef{Scope: "work", Project: "core", Task: "t-1"}
	nextID = 0
)

func commit(t *testing.T, st store.Store, p store.Plan, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Commit(context.Background(), st); err != nil {
		t.Fatal(err)
	}
}

func create(t *testing.T, b *Book, st store.Store, title string) runs.Run {
	t.Helper()
	nextID++
	run, p, err := b.PlanCreate(context.Background(), fmt.Sprintf("r-%04x", nextID), task, deputy, title)
	commit(t, st, p, err)
	return run
}

func TestRunLifecycleIsStoredAndLogged(t *testing.T) {
	ctx := context.Background()
	b, st := openBook(t)
	run := create(t, b, st, "build the parser")
	if run.Seq != 1 || run.State != runs.StatePending || run.Target().String() != "run:work/core/t-1/"+run.ID {
		t.Fatalf("created %+v", run)
	}
	// The same id again (a retry under the same correlation id) plans
	// nothing and answers the run; the id on another task is refused.
	again, p, err := b.PlanCreate(ctx, run.ID, task, deputy, "build the parser")
	if err != nil || !p.Empty() || again.ID != run.ID || again.Seq != 1 {
		t.Fatalf("create again: %+v %v %v", again, p, err)
	}
	if _, _, err := b.PlanCreate(ctx, run.ID, runs.TaskRef{Scope: "work", Project: "core", Task: "t-2"}, deputy, ""); !errors.Is(err, runs.ErrIDTaken) {
		t.Fatalf("the id on another task: %v", err)
	}
	if tg, err := b.Target(ctx, run.ID); err != nil || tg != run.Target() {
		t.Fatalf("Target = %v, %v", tg, err)
	}
	if _, err := b.Target(ctx, "r-missing"); !errors.Is(err, runs.ErrRunNotFound) {
		t.Fatalf("Target of no run: %v", err)
	}
	_, p, err = b.PlanAdvance(ctx, run.ID, deputy, runs.StateRunning, "starting")
	commit(t, st, p, err)
	ev, p, err := b.PlanEvent(ctx, run.ID, deputy, "", "parsed 3 of 4 files")
	commit(t, st, p, err)
	if ev.Seq != 2 || ev.Kind != runs.EventProgress || ev.By != deputy {
		t.Fatalf("event %+v", ev)
	}
	sum := "sha256:" + strings.Repeat("ab", 32)
	a, p, err := b.PlanArtifact(ctx, run.ID, deputy, runs.Artifact{Name: "parser", Size: 1234, SHA256: sum, Path: "out/parser.bin"})
	commit(t, st, p, err)
	if a.Seq != 1 || a.Path != "out/parser.bin" || a.Run != run.ID || a.TaskRef != task {
		t.Fatalf("artifact %+v", a)
	}
	_, p, err = b.PlanAdvance(ctx, run.ID, deputy, runs.StateSucceeded, "done")
	commit(t, st, p, err)

	got, _, err := b.Get(ctx, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != runs.StateSucceeded || got.Events != 3 || got.Artifacts != 1 || got.CreatedBy != deputy {
		t.Fatalf("stored %+v", got)
	}
	pg, err := b.Events(ctx, run.ID, "", 10)
	evs := pg.Items
	if err != nil || pg.Next != "" || len(evs) != 3 {
		t.Fatalf("events %+v err %v", pg, err)
	}
	if evs[0].From != runs.StatePending || evs[0].To != runs.StateRunning || evs[2].To != runs.StateSucceeded || evs[1].Text != "parsed 3 of 4 files" {
		t.Fatalf("log %+v", evs)
	}
	arts, err := b.Artifacts(ctx, run.ID)
	if err != nil || len(arts) != 1 || arts[0].SHA256 != sum || arts[0].Size != 1234 {
		t.Fatalf("artifacts %+v %v", arts, err)
	}
}

func TestAnIllegalMoveWritesNothing(t *testing.T) {
	ctx := context.Background()
	b, st := openBook(t)
	run := create(t, b, st, "")
	rev, _ := st.Rev(ctx)
	if _, _, err := b.PlanAdvance(ctx, run.ID, deputy, runs.StateSucceeded, ""); !errors.Is(err, runs.ErrIllegalMove) ||
		!strings.Contains(err.Error(), "pending → succeeded") {
		t.Fatalf("pending → succeeded: %v", err)
	}
	if now, _ := st.Rev(ctx); now != rev {
		t.Fatal("a refused move wrote")
	}
}

func TestAFinishedRunTakesNothingMore(t *testing.T) {
	ctx := context.Background()
	b, st := openBook(t)
	run := create(t, b, st, "")
	_, p, err := b.PlanAdvance(ctx, run.ID, deputy, runs.StateCancelled, "not needed")
	commit(t, st, p, err)
	if _, _, err := b.PlanEvent(ctx, run.ID, deputy, "", "late"); !errors.Is(err, runs.ErrRunFinished) {
		t.Errorf("event on a cancelled run: %v", err)
	}
	art := runs.Artifact{Name: "x", SHA256: "sha256:" + strings.Repeat("0", 64), Path: "x"}
	if _, _, err := b.PlanArtifact(ctx, run.ID, deputy, art); !errors.Is(err, runs.ErrRunFinished) {
		t.Errorf("artifact on a cancelled run: %v", err)
	}
	if _, _, err := b.PlanAdvance(ctx, run.ID, deputy, runs.StateRunning, ""); !errors.Is(err, runs.ErrIllegalMove) {
		t.Errorf("cancelled → running: %v", err)
	}
}

func TestTheEventLogIsBoundedButARunCanStillFinish(t *testing.T) {
	ctx := context.Background()
	b, st := openBook(t)
	run := create(t, b, st, "")
	_, p, err := b.PlanAdvance(ctx, run.ID, deputy, runs.StateRunning, "")
	commit(t, st, p, err)
	for i := 1; i < runs.MaxEvents; i++ {
		_, p, err := b.PlanEvent(ctx, run.ID, deputy, "output", fmt.Sprint("step ", i))
		commit(t, st, p, err)
	}
	if _, _, err := b.PlanEvent(ctx, run.ID, deputy, "", "one too many"); !errors.Is(err, runs.ErrEventLogFull) {
		t.Fatalf("event %d: %v", runs.MaxEvents+1, err)
	}
	if _, _, err := b.PlanAdvance(ctx, run.ID, deputy, runs.StateBlocked, ""); !errors.Is(err, runs.ErrEventLogFull) {
		t.Fatalf("a non-final move on a full log: %v", err)
	}
	_, p, err = b.PlanAdvance(ctx, run.ID, deputy, runs.StateFailed, "log full")
	commit(t, st, p, err)
	// Paging walks the whole log, in order, page by page.
	seen, after := 0, ""
	for {
		pg, err := b.Events(ctx, run.ID, after, paging.MaxLimit)
		if err != nil {
			t.Fatal(err)
		}
		next := pg.Next
		for _, e := range pg.Items {
			seen++
			if e.Seq != seen {
				t.Fatalf("event %d has seq %d", seen, e.Seq)
			}
		}
		if next == "" {
			break
		}
		after = next
	}
	if seen != runs.MaxEvents+1 {
		t.Fatalf("paged %d events, want %d", seen, runs.MaxEvents+1)
	}
}

func TestHostileTextAndArtifactsAreRefusedByName(t *testing.T) {
	ctx := context.Background()
	b, st := openBook(t)
	if _, _, err := b.PlanCreate(ctx, "r-x", task, deputy, "title\x1b[2J"); !errors.Is(err, termtext.ErrUnsafeChar) {
		t.Errorf("escape in a title: %v", err)
	}
	if _, _, err := b.PlanCreate(ctx, "r-x", task, deputy, strings.Repeat("x", runs.MaxTitle+1)); !errors.Is(err, termtext.ErrTooLong) {
		t.Errorf("long title: %v", err)
	}
	run := create(t, b, st, "")
	_, p, err := b.PlanAdvance(ctx, run.ID, deputy, runs.StateRunning, "")
	commit(t, st, p, err)
	if _, _, err := b.PlanEvent(ctx, run.ID, deputy, "", "\u202egnirts"); !errors.Is(err, termtext.ErrUnsafeChar) {
		t.Errorf("bidi override in an event: %v", err)
	}
	if _, _, err := b.PlanEvent(ctx, run.ID, deputy, "", ""); !errors.Is(err, runs.ErrEmptyText) {
		t.Errorf("empty event: %v", err)
	}
	if _, _, err := b.PlanEvent(ctx, run.ID, deputy, runs.EventMove, "forged move"); !errors.Is(err, runs.ErrReservedKind) {
		t.Errorf("a note of kind move: %v", err)
	}
	if _, _, err := b.PlanEvent(ctx, run.ID, deputy, "Bad Kind", "x"); !errors.Is(err, runs.ErrBadRef) {
		t.Errorf("a kind that is not an id: %v", err)
	}
	sum := "sha256:" + strings.Repeat("c", 64)
	for name, tc := range map[string]struct {
		a    runs.Artifact
		want error
	}{
		"upper-case digest": {runs.Artifact{Name: "a", SHA256: "sha256:" + strings.Repeat("C", 64), Path: "a"}, runs.ErrBadDigest},
		"short digest":      {runs.Artifact{Name: "a", SHA256: "abc", Path: "a"}, runs.ErrBadDigest},
		"bare hex digest":   {runs.Artifact{Name: "a", SHA256: strings.Repeat("c", 64), Path: "a"}, runs.ErrBadDigest},
		"negative size":     {runs.Artifact{Name: "a", SHA256: sum, Size: -1, Path: "a"}, runs.ErrBadSize},
		"huge size":         {runs.Artifact{Name: "a", SHA256: sum, Size: runs.MaxArtifactSize + 1, Path: "a"}, runs.ErrBadSize},
		"climbing path":     {runs.Artifact{Name: "a", SHA256: sum, Path: "../other/secret"}, nil},
		"absolute path":     {runs.Artifact{Name: "a", SHA256: sum, Path: "/etc/passwd"}, nil},
		"no name":           {runs.Artifact{SHA256: sum, Path: "a"}, runs.ErrEmptyText},
	} {
		_, _, err := b.PlanArtifact(ctx, run.ID, deputy, tc.a)
		if err == nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("%s: %v", name, err)
		}
	}
	_, p, err = b.PlanArtifact(ctx, run.ID, deputy, runs.Artifact{Name: "a", SHA256: sum, Path: "a"})
	commit(t, st, p, err)
	if _, _, err := b.PlanArtifact(ctx, run.ID, deputy, runs.Artifact{Name: "a", SHA256: sum, Path: "b"}); !errors.Is(err, runs.ErrArtifactExists) {
		t.Errorf("second artifact named a: %v", err)
	}
}

func TestIDsAreNormalizedStrictly(t *testing.T) {
	ctx := context.Background()
	b, _ := openBook(t)
	for _, bad := range []string{"", "R-1", "../r-1", "r-1/x", "-r", strings.Repeat("r", 200)} {
		if _, _, err := b.Get(ctx, bad); !errors.Is(err, runs.ErrBadRef) {
			t.Errorf("Get(%q) = %v", bad, err)
		}
		if _, err := b.List(ctx, bad, "", 5); !errors.Is(err, runs.ErrBadRef) {
			t.Errorf("List(%q) = %v", bad, err)
		}
	}
}

// Two writers planning from the same read: only one commits, the other
// meets ErrConflict and, planning again, gets the next number.
func TestConcurrentCreatesGetDistinctNumbers(t *testing.T) {
	ctx := context.Background()
	b, st := openBook(t)
	r1, p1, err1 := b.PlanCreate(ctx, "r-one", task, deputy, "one")
	r2, p2, err2 := b.PlanCreate(ctx, "r-two", task, deputy, "two")
	if err1 != nil || err2 != nil || r1.Seq != r2.Seq {
		t.Fatalf("planned %d and %d (%v, %v)", r1.Seq, r2.Seq, err1, err2)
	}
	commit(t, st, p1, nil)
	if _, err := p2.Commit(ctx, st); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("second commit from a stale read: %v", err)
	}
	if again := create(t, b, st, "two"); again.Seq != 2 {
		t.Fatalf("replanned as number %d", again.Seq)
	}
}

func TestListPagesInCreationOrder(t *testing.T) {
	ctx := context.Background()
	b, st := openBook(t)
	for range 12 {
		create(t, b, st, "")
	}
	other := runs.TaskRef{Scope: "work", Project: "core", Task: "t-10"}
	if _, p, err := b.PlanCreate(ctx, "r-other", other, deputy, "another task's"); err == nil {
		commit(t, st, p, nil)
	} else {
		t.Fatal(err)
	}
	var ids []string
	after := ""
	for {
		pg, err := b.List(ctx, task.Task, after, 5)
		if err != nil {
			t.Fatal(err)
		}
		next := pg.Next
		for _, r := range pg.Items {
			ids = append(ids, fmt.Sprint(r.Seq))
		}
		if next == "" {
			break
		}
		after = next
	}
	want := "1 2 3 4 5 6 7 8 9 10 11 12"
	if strings.Join(ids, " ") != want {
		t.Fatalf("paged %v", ids)
	}
	if _, err := b.List(ctx, task.Task, "../../x", 5); !errors.Is(err, paging.ErrBadToken) {
		t.Errorf("hostile token: %v", err)
	}
	// A token of t-1's list read under t-10's never reaches t-1's runs.
	first, _ := b.List(ctx, task.Task, "", 1)
	if pg, err := b.List(ctx, other.Task, first.Next, 5); err != nil || len(pg.Items) != 0 {
		t.Errorf("t-1's token on t-10's list: %+v %v", pg, err)
	}
	if _, err := b.List(ctx, task.Task, "", paging.MaxLimit+1); !errors.Is(err, paging.ErrBadLimit) {
		t.Errorf("oversized page: %v", err)
	}
	if pg, err := b.List(ctx, other.Task, "", 5); err != nil || len(pg.Items) != 1 || pg.Items[0].Title != "another task's" {
		t.Errorf("t-10's runs: %v %v", pg, err)
	}
}
