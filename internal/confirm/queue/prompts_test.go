package queue

import (
	"context"
	"errors"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/confirm/confirmtest"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// Spec: "An exact blocked operation may be learned through the prompt
// registry. The stored choice is keyed by stamp hash, handler action,
// normalized target scope, and operation shape. It cannot broaden the class
// profile or survive a changed stamp without review."
func TestPromptRegistryExactMatching(t *testing.T) {
	ctx := context.Background()
	q, _ := queueFor(t, Options{})
	p := policyFor(t, "work/core/lead", confirm.Options{})
	me := confirm.PersonaPrincipal(p.Address())
	learned := op(t, p, "workspace_write", "path:memory/old.md", stamp.ShapeDelete)
	r := mustRequest(t, q, me, p, learned, "c1")
	if _, err := commitApprove(ctx, q, henry, r.Confirmation.ID, confirm.RememberPersona); err != nil {
		t.Fatal(err)
	}
	// The exact operation is now allowed without asking, through the queue
	// and through a policy built with the active choices.
	if r := mustRequest(t, q, me, learnedPolicy(t, q, p), learned, "c2"); r.Status != confirm.StatusAllowed || !r.Decision.Remembered || r.Confirmation != nil {
		t.Fatalf("remembered approval: %+v", r)
	}
	active, err := q.Prompts().Active(ctx, p.Address(), p.Profile(), p.Keys())
	if err != nil || len(active) != 1 {
		t.Fatalf("active choices: %v, %v", active, err)
	}
	lp, err := confirm.NewPolicy(p.Stamp(), p.Hash(), confirm.Options{Learned: active})
	if err != nil {
		t.Fatal(err)
	}
	if d := lp.Authorize(learned); d.Verdict != confirm.Allow || !d.Remembered || d.Boundary != confirm.BoundaryDestructive {
		t.Fatalf("policy with learned choice: %s", d)
	}
	// The stamp's policy kept by the hub applies each request's choices
	// through With, and is itself unchanged by them.
	if d := p.With(confirm.Options{Learned: active}).Authorize(learned); d.Verdict != confirm.Allow || !d.Remembered {
		t.Fatalf("policy With the learned choice: %s", d)
	}
	if d := p.Authorize(learned); d.Verdict != confirm.Confirm || d.Remembered {
		t.Fatalf("the policy With was applied to changed: %s", d)
	}

	// Change any one of the four key parts: no match (decided afresh).
	otherTarget := op(t, p, "workspace_write", "path:memory/older.md", stamp.ShapeDelete)
	otherShape := op(t, p, "workspace_write", "path:memory/old.md", stamp.ShapeWriteOverwrite)
	otherAction := op(t, p, "workspace_read", "path:memory/old.md", stamp.ShapeDelete)
	for name, o := range map[string]confirm.Operation{"target": otherTarget, "shape": otherShape, "handler action": otherAction} {
		if d := lp.Authorize(o); d.Remembered {
			t.Errorf("changed %s still matches: %s", name, d)
		}
	}
	st2, hash2 := confirmtest.BuildStamp(t, "work/core/lead", 2)
	p2, err := confirm.NewPolicy(st2, hash2, confirm.Options{Learned: active})
	if err != nil {
		t.Fatal(err)
	}
	o2 := learned
	o2.Generation = 2
	if d := p2.Authorize(o2); d.Verdict != confirm.Confirm || d.Remembered {
		t.Fatalf("changed stamp hash still matches: %s", d)
	}
	r2, err := commitRequest(ctx, q, me, p2, o2, "c3")
	if err != nil || r2.Status != confirm.StatusUnknown {
		t.Fatalf("changed stamp through the queue: %+v, %v", r2, err)
	}

	// A changed stamp makes the choice stale; review lists it; only a human
	// carries it forward or drops it.
	stale, err := q.Prompts().Review(ctx, p.Address(), p.Profile(), p2.Keys())
	if err != nil || len(stale) != 1 || stale[0].Key.StampHash != p.Hash() {
		t.Fatalf("review: %+v, %v", stale, err)
	}
	if _, err := q.Prompts().CarryForward(ctx, confirm.PersonaPrincipal("root/secretary"), stale[0], p2.Keys()); !errors.Is(err, confirm.ErrModelDecision) {
		t.Fatalf("model carrying forward: %v", err)
	}
	if _, err := q.Prompts().CarryForward(ctx, henry, stale[0], p2.Keys()); err != nil {
		t.Fatal(err)
	}
	if stale, _ := q.Prompts().Review(ctx, p.Address(), p.Profile(), p2.Keys()); len(stale) != 0 {
		t.Fatalf("still stale after carry-forward: %+v", stale)
	}
	active2, _ := q.Prompts().Active(ctx, p.Address(), p.Profile(), p2.Keys())
	p2, _ = confirm.NewPolicy(st2, hash2, confirm.Options{Learned: active2})
	if d := p2.Authorize(o2); d.Verdict != confirm.Allow || !d.Remembered {
		t.Fatalf("carried-forward choice: %s", d)
	}
	if err := q.Prompts().Drop(ctx, henry, active2[0], p2.Keys()); !errors.Is(err, confirm.ErrNotStale) {
		t.Fatalf("dropping a current choice: %v", err)
	}
}

// A remembered denial is not asked again (like a rejected directive in
// smrt-personas, "a rejected rewrite is never re-surfaced"), and a learned
// choice never turns a deny into an allow nor exposes a missing tool.
func TestRememberedDenialNotAskedAgain(t *testing.T) {
	ctx := context.Background()
	q, _ := queueFor(t, Options{})
	p := policyFor(t, "work/core/lead", confirm.Options{})
	me := confirm.PersonaPrincipal(p.Address())
	r := mustRequest(t, q, me, p, deployOp(t, p), "c1")
	if _, err := commitDeny(ctx, q, henry, r.Confirmation.ID, "never to example.org", confirm.RememberClass); err != nil {
		t.Fatal(err)
	}
	for _, corr := range []string{"c2", "c3"} {
		r := mustRequest(t, q, me, learnedPolicy(t, q, p), deployOp(t, p), corr)
		if r.Status != confirm.StatusDenied || r.Decision.Boundary != confirm.BoundaryRememberedDenial || r.Confirmation != nil {
			t.Fatalf("%s: %+v", corr, r)
		}
	}
	if list, _ := q.List(ctx, false); len(list) != 0 {
		t.Fatalf("remembered denial queued again: %d pending", len(list))
	}
	choices, _ := q.Prompts().List(ctx, p.Address(), p.Profile())
	if len(choices) != 1 || choices[0].Where != confirm.RememberClass {
		t.Fatalf("class-common choice: %+v", choices)
	}
	// Forged allow choices for a deny-level and a not-exposed operation.
	secret := op(t, p, "workspace_read", "path:.env", stamp.ShapeReadRange)
	missing := op(t, p, "send_human_message", "surface:virgo-channel/human:henry", stamp.ShapeMessageSend)
	var forged []confirm.Choice
	for _, o := range []confirm.Operation{secret, missing} {
		forged = append(forged, confirm.Choice{Key: confirm.PromptKey{StampHash: p.Hash(), HandlerAction: o.HandlerAction, Target: o.Target, Shape: o.Shape}, Verdict: confirm.Allow})
	}
	fp, _ := confirm.NewPolicy(p.Stamp(), p.Hash(), confirm.Options{Learned: forged})
	if d := fp.Authorize(secret); d.Verdict != confirm.Deny || d.Boundary != confirm.BoundarySecretValues {
		t.Fatalf("learned allow widened a deny: %s", d)
	}
	if d := fp.Authorize(missing); d.Verdict != confirm.Deny || d.Boundary != confirm.BoundaryNotExposed {
		t.Fatalf("learned allow exposed a tool: %s", d)
	}
	// Activations are not remembered.
	st, hash := confirmtest.BuildStamp(t, "work/core/deputy", 1)
	ar, err := requestActivation(t, q, st, hash, "+ tools")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := commitApprove(ctx, q, henry, ar.Confirmation.ID, confirm.RememberPersona); !errors.Is(err, confirm.ErrNotRememberable) {
		t.Fatalf("remembering an activation: %v", err)
	}
}

// A request answers from the learned choices its policy was given
// (Options.Learned, as the use cases build it from Prompts.Active), and
// looks none up in the store itself: given the choice, the remembered
// approval allows; given none, it asks.
func TestRequestUsesOnlyItsPolicysChoices(t *testing.T) {
	ctx := context.Background()
	q, _ := queueFor(t, Options{})
	p := policyFor(t, "work/core/lead", confirm.Options{})
	me := confirm.PersonaPrincipal(p.Address())
	learned := op(t, p, "workspace_write", "path:memory/old.md", stamp.ShapeDelete)
	r := mustRequest(t, q, me, p, learned, "c1")
	if _, err := commitApprove(ctx, q, henry, r.Confirmation.ID, confirm.RememberPersona); err != nil {
		t.Fatal(err)
	}
	active, err := q.Prompts().Active(ctx, p.Address(), p.Profile(), p.Keys())
	if err != nil || len(active) != 1 {
		t.Fatalf("active choices: %v, %v", active, err)
	}
	if r := mustRequest(t, q, me, p.With(confirm.Options{Learned: active}), learned, "c2"); r.Status != confirm.StatusAllowed || !r.Decision.Remembered {
		t.Fatalf("under the policy given the choice: %+v, want allowed as remembered", r)
	}
	if r := mustRequest(t, q, me, p, learned, "c3"); r.Status == confirm.StatusAllowed || r.Decision.Remembered {
		t.Fatalf("under a policy given no choice: %+v, want a confirmation (no lookup of its own)", r)
	}
}
