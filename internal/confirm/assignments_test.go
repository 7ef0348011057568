package confirm

import (
	"context"
	"errors"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// Spec: deputy-scope confirmations ("a coder-deputy acting on runs or
// artifacts outside its assigned task, within its project") go to the
// owning lead. The assigned tasks are recorded by that lead (or the bound
// human), never asserted by the deputy.
func TestAssignedTasksDecideDeputyScope(t *testing.T) {
	ctx := context.Background()
	q, _ := queueFor(t, QueueOptions{})
	st, hash := buildStamp(t, "work/core/deputy", 1)
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
		if _, err := q.Assign(ctx, tc.by, st, tc.task); !errors.Is(err, tc.want) {
			t.Errorf("%s assigns %s: %v, want %v", tc.by, tc.task, err, tc.want)
		}
	}
	if _, err := q.Assign(ctx, lead, st, "work/core/t-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Assign(ctx, henry, st, "work/core/t-2"); err != nil {
		t.Fatal(err)
	}
	leadSt, _ := buildStamp(t, "work/core/lead", 1)
	if _, err := q.Assign(ctx, henry, leadSt, "work/core/t-1"); !errors.Is(err, ErrNoOwningLead) {
		t.Errorf("assigning a lead a task: %v, want ErrNoOwningLead", err)
	}

	policy := func() *Policy {
		as, err := q.Assignments(ctx, st.Persona.ID)
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewPolicy(st, hash, Options{Assignments: Tasks(as)})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := policy()
	for _, target := range []string{"run:work/core/t-1/r-1", "run:work/core/t-2/r-7", "task:work/core/t-1"} {
		if d := p.Authorize(op(t, p, "list_runs", target, stamp.ShapeReadMeta)); d.Verdict != Allow {
			t.Errorf("%s inside an assigned task: %v, want allow", target, d)
		}
	}
	d := p.Authorize(op(t, p, "get_run", "run:work/core/t-9/r-1", stamp.ShapeReadMeta))
	if d.Verdict != Confirm || d.Boundary != BoundaryDeputyScope || d.Route() != RouteOwningLead {
		t.Fatalf("run outside the assigned tasks: %v (route %v), want confirm at deputy scope routed to the owning lead", d, d.Route())
	}

	if err := q.Unassign(ctx, PersonaPrincipal("work/core/deputy"), st, "work/core/t-1"); !errors.Is(err, ErrSelfAssignment) {
		t.Errorf("deputy unassigning: %v", err)
	}
	if err := q.Unassign(ctx, lead, st, "work/core/t-1"); err != nil {
		t.Fatal(err)
	}
	if err := q.Unassign(ctx, lead, st, "work/core/t-1"); !errors.Is(err, ErrNotAssigned) {
		t.Errorf("unassigning twice: %v", err)
	}
	p = policy()
	if d := p.Authorize(op(t, p, "get_run", "run:work/core/t-1/r-1", stamp.ShapeReadMeta)); d.Verdict != Confirm {
		t.Errorf("run of an unassigned task: %v, want confirm", d)
	}
	// a new generation of the seat starts with no assigned task
	st2, _ := buildStamp(t, "work/core/deputy", 2)
	st2.Persona.ID = "p-next"
	if as, err := q.Assignments(ctx, st2.Persona.ID); err != nil || len(as) != 0 {
		t.Errorf("new generation's assignments: %v %v", as, err)
	}
	es, err := q.Audit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	for _, e := range es {
		events = append(events, e.Event+" "+e.Actor.String())
	}
	want := []string{"task-assigned work/core/lead", "task-assigned human:henry", "task-unassigned work/core/lead"}
	if len(events) != len(want) || events[0] != want[0] || events[1] != want[1] || events[2] != want[2] {
		t.Errorf("audit: %v, want %v", events, want)
	}
}
