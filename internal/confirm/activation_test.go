package confirm

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// lifecycle records what ApplyLifecycle asked of the registry.
type lifecycle struct{ calls []string }

func (l *lifecycle) Activate(_ context.Context, id string) error {
	l.calls = append(l.calls, "activate "+id)
	return nil
}

func (l *lifecycle) Refuse(_ context.Context, id, reason string) error {
	l.calls = append(l.calls, "refuse "+id+": "+reason)
	return nil
}

func (l *lifecycle) Retire(_ context.Context, id, reason string) error {
	l.calls = append(l.calls, "retire "+id)
	return nil
}

// Activating a new generation's stamp is a permission change confirmed by
// the bound human; retirement is destructive and confirmed the same way.
func TestActivationAndRetirementAreConfirmed(t *testing.T) {
	ctx := context.Background()
	q, _ := queueFor(t, QueueOptions{})
	st, hash := buildStamp(t, "work/core/deputy", 1)
	r, err := q.RequestActivation(ctx, st, hash, "+ create_run (assigned-task)")
	if err != nil {
		t.Fatal(err)
	}
	c := r.Confirmation
	if c.Kind != KindActivation || c.Boundary != BoundaryCredentialOrPermission || c.Authority != henry ||
		!strings.Contains(c.Detail, "create_run") || c.Operation.Shape != ShapePermissionChange {
		t.Fatalf("activation confirmation: %+v", c)
	}
	again, err := q.RequestActivation(ctx, st, hash, "+ create_run (assigned-task)")
	if err != nil || again.Confirmation.ID != c.ID {
		t.Fatalf("asked again: %+v, %v", again, err)
	}
	if _, err := q.Approve(ctx, PersonaPrincipal("work/core/lead"), c.ID, RememberNone); !errors.Is(err, ErrModelDecision) {
		t.Fatalf("lead activating a deputy: %v", err)
	}
	reg := &lifecycle{}
	if err := ApplyLifecycle(ctx, c, reg); err != nil || len(reg.calls) != 0 {
		t.Fatalf("applied while pending: %v %v", reg.calls, err)
	}
	c, err = q.Approve(ctx, henry, c.ID, RememberNone)
	if err != nil {
		t.Fatal(err)
	}
	if err := ApplyLifecycle(ctx, c, reg); err != nil || len(reg.calls) != 1 || !strings.HasPrefix(reg.calls[0], "activate ") {
		t.Fatalf("activation applied: %v %v", reg.calls, err)
	}
	// Henry asks to retire; as the bound human he confirms it.
	rr, err := q.RequestRetirement(ctx, henry, st, hash, "project closed")
	if err != nil {
		t.Fatal(err)
	}
	if rr.Confirmation.Boundary != BoundaryDestructive || rr.Confirmation.Kind != KindRetirement {
		t.Fatalf("retirement: %+v", rr.Confirmation)
	}
	c, err = q.Deny(ctx, henry, rr.Confirmation.ID, "not yet", RememberNone)
	if err != nil {
		t.Fatal(err)
	}
	if err := ApplyLifecycle(ctx, c, reg); err != nil || len(reg.calls) != 1 {
		t.Fatalf("denied retirement applied: %v", reg.calls)
	}
	// A refused activation refuses the generation.
	st2, hash2 := buildStamp(t, "work/core/deputy", 2)
	r2, _ := q.RequestActivation(ctx, st2, hash2, "")
	c2, err := q.Deny(ctx, henry, r2.Confirmation.ID, "wrong repository", RememberNone)
	if err != nil {
		t.Fatal(err)
	}
	if err := ApplyLifecycle(ctx, c2, reg); err != nil || !strings.Contains(reg.calls[1], "wrong repository") {
		t.Fatalf("refusal: %v %v", reg.calls, err)
	}
}
