package queue

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/confirm/confirmtest"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// effect is a decided confirmation's lifecycle effect as text.
func effect(c *confirm.Confirmation) string {
	e, reason := confirm.LifecycleEffect(c)
	if e == confirm.EffectNone {
		return ""
	}
	return string(e) + " " + c.PersonaID + ": " + reason
}

// Activating a new generation's stamp is a permission change confirmed by
// the bound human; retirement is destructive and confirmed the same way.
func TestActivationAndRetirementAreConfirmed(t *testing.T) {
	ctx := context.Background()
	q, _ := queueFor(t, Options{})
	st, hash := confirmtest.BuildStamp(t, "work/core/deputy", 1)
	r, err := requestActivation(t, q, st, hash, "+ create_run (assigned-task)")
	if err != nil {
		t.Fatal(err)
	}
	c := r.Confirmation
	if c.Kind != confirm.KindActivation || c.Boundary != confirm.BoundaryCredentialOrPermission || c.Authority != henry ||
		!strings.Contains(c.Detail, "create_run") || c.Operation.Shape != stamp.ShapePermissionChange {
		t.Fatalf("activation confirmation: %+v", c)
	}
	again, err := requestActivation(t, q, st, hash, "+ create_run (assigned-task)")
	if err != nil || again.Confirmation.ID != c.ID {
		t.Fatalf("asked again: %+v, %v", again, err)
	}
	if _, err := commitApprove(ctx, q, confirm.PersonaPrincipal("work/core/lead"), c.ID, confirm.RememberNone); !errors.Is(err, confirm.ErrModelDecision) {
		t.Fatalf("lead activating a deputy: %v", err)
	}
	if e := effect(c); e != "" {
		t.Fatalf("a pending activation has the effect %q", e)
	}
	c, err = commitApprove(ctx, q, henry, c.ID, confirm.RememberNone)
	if err != nil {
		t.Fatal(err)
	}
	if e := effect(c); !strings.HasPrefix(e, "activate ") {
		t.Fatalf("an approved activation has the effect %q", e)
	}
	// Henry asks to retire; as the bound human he confirms it.
	rr, err := commitRetirement(ctx, q, henry, st, hash, "project closed")
	if err != nil {
		t.Fatal(err)
	}
	if rr.Confirmation.Boundary != confirm.BoundaryDestructive || rr.Confirmation.Kind != confirm.KindRetirement {
		t.Fatalf("retirement: %+v", rr.Confirmation)
	}
	c, err = commitDeny(ctx, q, henry, rr.Confirmation.ID, "not yet", confirm.RememberNone)
	if err != nil {
		t.Fatal(err)
	}
	if e := effect(c); e != "" {
		t.Fatalf("a denied retirement has the effect %q", e)
	}
	// A refused activation refuses the generation.
	st2, hash2 := confirmtest.BuildStamp(t, "work/core/deputy", 2)
	r2, _ := requestActivation(t, q, st2, hash2, "")
	c2, err := commitDeny(ctx, q, henry, r2.Confirmation.ID, "wrong repository", confirm.RememberNone)
	if err != nil {
		t.Fatal(err)
	}
	if e := effect(c2); !strings.HasPrefix(e, "refuse ") || !strings.Contains(e, "wrong repository") {
		t.Fatalf("a denied activation has the effect %q", e)
	}
}

// A denied or expired retirement does not close the question for the
// generation: asking again queues a new confirmation, while asking during a
// pending one joins it. What the registry records is the requester's
// reason, with the decider's note.
func TestRetirementIsAskedAgainAfterADenialOrExpiry(t *testing.T) {
	ctx := context.Background()
	q, clk := queueFor(t, Options{TTL: time.Hour})
	st, hash := confirmtest.BuildStamp(t, "work/core/deputy", 1)
	first, err := commitRetirement(ctx, q, henry, st, hash, "task done")
	if err != nil {
		t.Fatal(err)
	}
	joined, err := commitRetirement(ctx, q, henry, st, hash, "asked twice")
	if err != nil || joined.Confirmation.ID != first.Confirmation.ID {
		t.Fatalf("asked again while pending: %+v %v, want to join %s", joined.Confirmation, err, first.Confirmation.ID)
	}
	if _, err := commitDeny(ctx, q, henry, first.Confirmation.ID, "not yet", confirm.RememberNone); err != nil {
		t.Fatal(err)
	}
	second, err := commitRetirement(ctx, q, henry, st, hash, "task really done")
	if err != nil {
		t.Fatal(err)
	}
	if second.Status != confirm.StatusUnknown || second.Confirmation.ID == first.Confirmation.ID {
		t.Fatalf("asked after a denial: %s %s, want a new pending confirmation", second.Status, second.Confirmation.ID)
	}
	clk.Advance(2 * time.Hour) // the second one expires, counting as denied
	third, err := commitRetirement(ctx, q, henry, st, hash, "closing the project")
	if err != nil {
		t.Fatal(err)
	}
	if third.Status != confirm.StatusUnknown || third.Confirmation.ID == second.Confirmation.ID {
		t.Fatalf("asked after an expiry: %s %s, want a new pending confirmation", third.Status, third.Confirmation.ID)
	}
	c, err := commitDecide(ctx, q, henry, third.Confirmation.ID, true, confirm.RememberNone, "")
	if err != nil {
		t.Fatal(err)
	}
	if e := effect(c); e != "retire "+st.Persona.ID+": closing the project" {
		t.Fatalf("effect %q, want the requester's reason", e)
	}
	// once approved, asking again answers with the approved retirement
	again, err := commitRetirement(ctx, q, henry, st, hash, "again")
	if err != nil || again.Confirmation.ID != c.ID || again.Status != confirm.StatusAllowed {
		t.Fatalf("asked after approval: %+v %v, want %s approved", again, err, c.ID)
	}
	// the decider's note is added to the requester's reason
	st2, hash2 := confirmtest.BuildStamp(t, "work/core/lead", 1)
	r, err := commitRetirement(ctx, q, henry, st2, hash2, "context exhausted")
	if err != nil {
		t.Fatal(err)
	}
	c, err = commitDecide(ctx, q, henry, r.Confirmation.ID, true, confirm.RememberNone, "regrant tomorrow")
	if err != nil {
		t.Fatal(err)
	}
	want := "retire " + st2.Persona.ID + ": context exhausted (approved by human:henry: regrant tomorrow)"
	if e := effect(c); e != want {
		t.Fatalf("effect %q, want %q", e, want)
	}
}
