package runs

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/termtext"
)

// openBook is a Book over a real bbolt file in t.TempDir().
func openBook(t *testing.T) (*Book, store.Store) {
	t.Helper()
	st, err := store.OpenBolt(filepath.Join(t.TempDir(), "virgo.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clock := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	return NewBook(st, func() time.Time { clock = clock.Add(time.Second); return clock }), st
}

var (
	deputy = confirm.PersonaPrincipal("work/core/deputy")
	task   = TaskRef{Scope: "work", Project: "core", Task: "t-1"}
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

func create(t *testing.T, b *Book, st store.Store, title string) Run {
	t.Helper()
	run, p, err := b.PlanCreate(context.Background(), task, deputy, title)
	commit(t, st, p, err)
	return run
}

func TestRunLifecycleIsStoredAndLogged(t *testing.T) {
	ctx := context.Background()
	b, st := openBook(t)
	run := create(t, b, st, "build the parser")
	if run.Run != "r-1" || run.State != StatePending || run.String() != "work/core/t-1/r-1" {
		t.Fatalf("created %+v", run)
	}
	_, p, err := b.PlanAdvance(ctx, run.Ref, deputy, StateRunning, "starting")
	commit(t, st, p, err)
	ev, p, err := b.PlanEvent(ctx, run.Ref, deputy, "parsed 3 of 4 files")
	commit(t, st, p, err)
	if ev.Seq != 2 || ev.Kind != EventNote || ev.By != deputy {
		t.Fatalf("event %+v", ev)
	}
	sum := strings.Repeat("ab", 32)
	a, p, err := b.PlanArtifact(ctx, run.Ref, deputy, Artifact{Name: "parser", Size: 1234, SHA256: sum, Path: "out/parser.bin"})
	commit(t, st, p, err)
	if a.Seq != 1 || a.Path != "out/parser.bin" {
		t.Fatalf("artifact %+v", a)
	}
	_, p, err = b.PlanAdvance(ctx, run.Ref, deputy, StateSucceeded, "done")
	commit(t, st, p, err)

	got, _, err := b.Get(ctx, run.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != StateSucceeded || got.Events != 3 || got.Artifacts != 1 || got.CreatedBy != deputy {
		t.Fatalf("stored %+v", got)
	}
	evs, next, err := b.Events(ctx, run.Ref, 0, 10)
	if err != nil || next != 0 || len(evs) != 3 {
		t.Fatalf("events %+v next %d err %v", evs, next, err)
	}
	if evs[0].From != StatePending || evs[0].To != StateRunning || evs[2].To != StateSucceeded || evs[1].Text != "parsed 3 of 4 files" {
		t.Fatalf("log %+v", evs)
	}
	arts, err := b.Artifacts(ctx, run.Ref)
	if err != nil || len(arts) != 1 || arts[0].SHA256 != sum || arts[0].Size != 1234 {
		t.Fatalf("artifacts %+v %v", arts, err)
	}
}

// The spec's "a run ... moves through a documented state machine (an
// illegal move is refused by name)": every pair of states is tried.
func TestEveryMoveOutsideTheMachineIsRefusedByName(t *testing.T) {
	legal := map[[2]State]bool{}
	for _, m := range Machine() {
		for _, to := range m.To {
			legal[[2]State{m.From, to}] = true
		}
	}
	for _, from := range Machine() {
		for _, to := range Machine() {
			err := checkMove(from.From, to.From)
			if legal[[2]State{from.From, to.From}] != (err == nil) {
				t.Errorf("%s → %s: %v", from.From, to.From, err)
			}
			if err != nil && (!errors.Is(err, ErrIllegalMove) || !strings.Contains(err.Error(), string(from.From))) {
				t.Errorf("%s → %s: refusal %q does not name the move", from.From, to.From, err)
			}
		}
	}
	if _, err := ParseState("done"); !errors.Is(err, ErrUnknownState) {
		t.Fatalf("ParseState(done) = %v", err)
	}
}

func TestAnIllegalMoveWritesNothing(t *testing.T) {
	ctx := context.Background()
	b, st := openBook(t)
	run := create(t, b, st, "")
	rev, _ := st.Rev(ctx)
	if _, _, err := b.PlanAdvance(ctx, run.Ref, deputy, StateSucceeded, ""); !errors.Is(err, ErrIllegalMove) ||
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
	_, p, err := b.PlanAdvance(ctx, run.Ref, deputy, StateCancelled, "not needed")
	commit(t, st, p, err)
	if _, _, err := b.PlanEvent(ctx, run.Ref, deputy, "late"); !errors.Is(err, ErrRunFinished) {
		t.Errorf("event on a cancelled run: %v", err)
	}
	art := Artifact{Name: "x", SHA256: strings.Repeat("0", 64), Path: "x"}
	if _, _, err := b.PlanArtifact(ctx, run.Ref, deputy, art); !errors.Is(err, ErrRunFinished) {
		t.Errorf("artifact on a cancelled run: %v", err)
	}
	if _, _, err := b.PlanAdvance(ctx, run.Ref, deputy, StateRunning, ""); !errors.Is(err, ErrIllegalMove) {
		t.Errorf("cancelled → running: %v", err)
	}
}

func TestTheEventLogIsBoundedButARunCanStillFinish(t *testing.T) {
	ctx := context.Background()
	b, st := openBook(t)
	run := create(t, b, st, "")
	_, p, err := b.PlanAdvance(ctx, run.Ref, deputy, StateRunning, "")
	commit(t, st, p, err)
	for i := 1; i < MaxEvents; i++ {
		_, p, err := b.PlanEvent(ctx, run.Ref, deputy, fmt.Sprint("step ", i))
		commit(t, st, p, err)
	}
	if _, _, err := b.PlanEvent(ctx, run.Ref, deputy, "one too many"); !errors.Is(err, ErrEventLogFull) {
		t.Fatalf("event %d: %v", MaxEvents+1, err)
	}
	if _, _, err := b.PlanAdvance(ctx, run.Ref, deputy, StateBlocked, ""); !errors.Is(err, ErrEventLogFull) {
		t.Fatalf("a non-final move on a full log: %v", err)
	}
	_, p, err = b.PlanAdvance(ctx, run.Ref, deputy, StateFailed, "log full")
	commit(t, st, p, err)
	// Paging walks the whole log, in order, page by page.
	seen, after := 0, 0
	for {
		evs, next, err := b.Events(ctx, run.Ref, after, MaxPage)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			seen++
			if e.Seq != seen {
				t.Fatalf("event %d has seq %d", seen, e.Seq)
			}
		}
		if next == 0 {
			break
		}
		after = next
	}
	if seen != MaxEvents+1 {
		t.Fatalf("paged %d events, want %d", seen, MaxEvents+1)
	}
}

func TestHostileTextAndArtifactsAreRefusedByName(t *testing.T) {
	ctx := context.Background()
	b, st := openBook(t)
	if _, _, err := b.PlanCreate(ctx, task, deputy, "title\x1b[2J"); !errors.Is(err, termtext.ErrUnsafeChar) {
		t.Errorf("escape in a title: %v", err)
	}
	if _, _, err := b.PlanCreate(ctx, task, deputy, strings.Repeat("x", MaxTitle+1)); !errors.Is(err, termtext.ErrTooLong) {
		t.Errorf("long title: %v", err)
	}
	run := create(t, b, st, "")
	_, p, err := b.PlanAdvance(ctx, run.Ref, deputy, StateRunning, "")
	commit(t, st, p, err)
	if _, _, err := b.PlanEvent(ctx, run.Ref, deputy, "\u202egnirts"); !errors.Is(err, termtext.ErrUnsafeChar) {
		t.Errorf("bidi override in an event: %v", err)
	}
	if _, _, err := b.PlanEvent(ctx, run.Ref, deputy, ""); !errors.Is(err, ErrEmptyText) {
		t.Errorf("empty event: %v", err)
	}
	sum := strings.Repeat("c", 64)
	for name, tc := range map[string]struct {
		a    Artifact
		want error
	}{
		"upper-case digest": {Artifact{Name: "a", SHA256: strings.Repeat("C", 64), Path: "a"}, ErrBadDigest},
		"short digest":      {Artifact{Name: "a", SHA256: "abc", Path: "a"}, ErrBadDigest},
		"negative size":     {Artifact{Name: "a", SHA256: sum, Size: -1, Path: "a"}, ErrBadSize},
		"huge size":         {Artifact{Name: "a", SHA256: sum, Size: MaxArtifactSize + 1, Path: "a"}, ErrBadSize},
		"climbing path":     {Artifact{Name: "a", SHA256: sum, Path: "../other/secret"}, nil},
		"absolute path":     {Artifact{Name: "a", SHA256: sum, Path: "/etc/passwd"}, nil},
		"no name":           {Artifact{SHA256: sum, Path: "a"}, ErrEmptyText},
	} {
		_, _, err := b.PlanArtifact(ctx, run.Ref, deputy, tc.a)
		if err == nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("%s: %v", name, err)
		}
	}
	_, p, err = b.PlanArtifact(ctx, run.Ref, deputy, Artifact{Name: "a", SHA256: sum, Path: "a"})
	commit(t, st, p, err)
	if _, _, err := b.PlanArtifact(ctx, run.Ref, deputy, Artifact{Name: "a", SHA256: sum, Path: "b"}); !errors.Is(err, ErrArtifactExists) {
		t.Errorf("second artifact named a: %v", err)
	}
}

func TestRefsAreNormalizedStrictly(t *testing.T) {
	if r, err := ParseRef("work/core/t-1/r-12"); err != nil || r.Task != "t-1" || r.Run != "r-12" {
		t.Fatalf("ParseRef = %+v, %v", r, err)
	}
	for _, bad := range []string{"work/core/t-1", "work/core/t-1/r-0", "work/core/t-1/r-01", "work/../t-1/r-1",
		"Work/core/t-1/r-1", "work/core/t-1/run", "work/core/t-1/r-99999"} {
		if _, err := ParseRef(bad); !errors.Is(err, ErrBadRef) {
			t.Errorf("ParseRef(%q) = %v", bad, err)
		}
	}
	if _, err := ParseTaskRef("work/core"); !errors.Is(err, ErrBadRef) {
		t.Errorf("ParseTaskRef(work/core) = %v", err)
	}
}

// Two writers planning from the same read: only one commits, the other
// meets ErrConflict and, planning again, gets the next number.
func TestConcurrentCreatesGetDistinctNumbers(t *testing.T) {
	ctx := context.Background()
	b, st := openBook(t)
	r1, p1, err1 := b.PlanCreate(ctx, task, deputy, "one")
	r2, p2, err2 := b.PlanCreate(ctx, task, deputy, "two")
	if err1 != nil || err2 != nil || r1.Run != r2.Run {
		t.Fatalf("planned %s and %s (%v, %v)", r1.Run, r2.Run, err1, err2)
	}
	commit(t, st, p1, nil)
	if _, err := p2.Commit(ctx, st); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("second commit from a stale read: %v", err)
	}
	if again := create(t, b, st, "two"); again.Run != "r-2" {
		t.Fatalf("replanned as %s", again.Run)
	}
}

func TestListPagesInCreationOrder(t *testing.T) {
	ctx := context.Background()
	b, st := openBook(t)
	for range 12 {
		create(t, b, st, "")
	}
	other := TaskRef{Scope: "work", Project: "core", Task: "t-10"}
	if _, p, err := b.PlanCreate(ctx, other, deputy, "another task's"); err == nil {
		commit(t, st, p, nil)
	} else {
		t.Fatal(err)
	}
	var ids []string
	after := ""
	for {
		page, next, err := b.List(ctx, task, after, 5)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page {
			ids = append(ids, r.Run)
		}
		if next == "" {
			break
		}
		after = next
	}
	want := "r-1 r-2 r-3 r-4 r-5 r-6 r-7 r-8 r-9 r-10 r-11 r-12"
	if strings.Join(ids, " ") != want {
		t.Fatalf("paged %v", ids)
	}
	if _, _, err := b.List(ctx, task, "../../x", 5); !errors.Is(err, ErrBadCursor) {
		t.Errorf("hostile cursor: %v", err)
	}
	if _, _, err := b.List(ctx, task, "", MaxPage+1); !errors.Is(err, ErrBadCursor) {
		t.Errorf("oversized page: %v", err)
	}
	if page, _, err := b.List(ctx, other, "", 5); err != nil || len(page) != 1 || page[0].Title != "another task's" {
		t.Errorf("t-10's runs: %v %v", page, err)
	}
}
