package confirm

import (
	"errors"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm/confirmtest"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// Spec: deputy-scope confirmations ("a coder-deputy acting on runs or
// artifacts outside its assigned task, within its project") go to the
// owning lead. The assigned tasks are recorded by that lead (or the bound
// human), never asserted by the deputy.
func TestAssignedTasksDecideDeputyScope(t *testing.T) {
	st, hash := confirmtest.BuildStamp(t, "work/core/deputy", 1)
	lead := PersonaPrincipal("work/core/lead")

	for _, tc := range []struct {
		by   Principal
		task string
		want error
	}{
		{PersonaPrincipal("work/core/deputy"), "work/core/t-1", ErrSelfAssignment},
		{PersonaPrincipal("work/web/lead"), "work/core/t-1", ErrNotAssigner},
		{PersonaPrincipal("work/core/other"), "work/core/t-1", ErrNotAssigner},
		{Principal{Kind: PrincipalHuman, Name: "ada"}, "work/core/t-1", ErrNotAssigner},
		{lead, "work/web/t-1", ErrOutsideProject},
		{lead, "home/core/t-1", ErrOutsideProject},
		{lead, "work/core/../t-1", ErrTargetSyntax},
		{lead, "work/core/T-1", ErrUpperCase},
	} {
		if _, err := AssignmentTarget(tc.by, st, tc.task); !errors.Is(err, tc.want) {
			t.Errorf("%s assigns %s: %v, want %v", tc.by, tc.task, err, tc.want)
		}
	}
	for _, by := range []Principal{lead, henry} {
		if tg, err := AssignmentTarget(by, st, "work/core/t-1"); err != nil || tg.String() != "task:work/core/t-1" {
			t.Errorf("%s assigns work/core/t-1: %v %v", by, tg, err)
		}
	}
	leadSt, _ := confirmtest.BuildStamp(t, "work/core/lead", 1)
	if _, err := AssignmentTarget(henry, leadSt, "work/core/t-1"); !errors.Is(err, ErrNoOwningLead) {
		t.Errorf("assigning a lead a task: %v, want ErrNoOwningLead", err)
	}

	p, err := NewPolicy(st, hash, Options{Assignments: TaskSet{"t-1": true, "t-2": true}})
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"run:work/core/t-1/r-1", "run:work/core/t-2/r-7", "task:work/core/t-1"} {
		if d := p.Authorize(op(t, p, "list_runs", target, stamp.ShapeReadMeta)); d.Verdict != Allow {
			t.Errorf("%s inside an assigned task: %v, want allow", target, d)
		}
	}
	d := p.Authorize(op(t, p, "get_run", "run:work/core/t-9/r-1", stamp.ShapeReadMeta))
	if d.Verdict != Confirm || d.Boundary != BoundaryDeputyScope || d.Route() != RouteOwningLead {
		t.Fatalf("run outside the assigned tasks: %v (route %v), want confirm at deputy scope routed to the owning lead", d, d.Route())
	}
}
