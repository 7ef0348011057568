package queue

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/confirm/confirmtest"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// RememberRule is exactly what approve-and-remember stores: the persona
// layer keyed by the stamp hash, the class overlay by the class key the
// confirmation recorded, and the handler action, normalized target and shape
// of the operation — read from the record alone.
func TestRememberRuleIsWhatApproveAndRememberStores(t *testing.T) {
	ctx := context.Background()
	for _, where := range []confirm.Remember{confirm.RememberPersona, confirm.RememberClass} {
		t.Run(string(where), func(t *testing.T) {
			q, _ := queueFor(t, Options{})
			p := policyFor(t, "work/core/lead", confirm.Options{})
			o := op(t, p, "workspace_write", "path:memory/./old.md", stamp.ShapeDelete)
			c := mustRequest(t, q, confirm.PersonaPrincipal(p.Address()), p, o, "c1").Confirmation
			stored, err := q.Get(ctx, c.ID) // the record as a console reads it
			if err != nil {
				t.Fatal(err)
			}
			rule, err := stored.RememberRuleIn(where)
			if err != nil {
				t.Fatal(err)
			}
			want := confirm.PromptKey{HandlerAction: "workspace.write", Target: confirm.Target{Kind: confirm.TargetPath, Value: "memory/old.md"}, Shape: stamp.ShapeDelete}
			if where == confirm.RememberPersona {
				want.StampHash = p.Hash()
				if def, err := stored.RememberRule(); err != nil || def != rule {
					t.Errorf("RememberRule() = %+v, %v; want the persona rule %+v", def, err, rule)
				}
			} else {
				ck, err := stamp.ClassKey(*p.Stamp())
				if err != nil {
					t.Fatal(err)
				}
				want.ClassKey = ck
			}
			if rule.Key != want || rule.Where != where || rule.Boundary != confirm.BoundaryDestructive ||
				rule.Persona != "work/core/lead" || rule.Profile != "project-lead" {
				t.Fatalf("rule %+v, want key %+v in %s", rule, want, where)
			}
			for _, part := range []string{"workspace.write", "delete", "path:memory/old.md", "destructive-or-irreversible"} {
				if !strings.Contains(rule.String(), part) {
					t.Errorf("rule text %q lacks %q", rule, part)
				}
			}
			if _, err := commitApprove(ctx, q, henry, c.ID, where); err != nil {
				t.Fatal(err)
			}
			all, err := q.Prompts().All(ctx)
			if err != nil || len(all) != 1 {
				t.Fatalf("stored choices: %+v, %v", all, err)
			}
			if got := all[0]; got.Key != rule.Key || got.Where != where || got.Boundary != rule.Boundary || got.Verdict != confirm.Allow {
				t.Fatalf("stored %+v, the rule said %+v", got, rule)
			}
		})
	}
}

// Activations, retirements and confirmations queued before class keys were
// recorded say why they cannot be remembered, with ErrNotRememberable.
func TestRememberRuleRefusals(t *testing.T) {
	q, _ := queueFor(t, Options{})
	st, hash := confirmtest.BuildStamp(t, "work/core/deputy", 1)
	ar, err := requestActivation(t, q, st, hash, "+ tools")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ar.Confirmation.RememberRule(); !errors.Is(err, confirm.ErrNotRememberable) || !strings.Contains(err.Error(), "activation grants") {
		t.Errorf("activation: %v", err)
	}
	p := policyFor(t, "work/core/lead", confirm.Options{})
	c := mustRequest(t, q, confirm.PersonaPrincipal(p.Address()), p, deployOp(t, p), "c1").Confirmation
	old := *c
	old.ClassKey = "" // a record from before class keys
	if _, err := old.RememberRuleIn(confirm.RememberClass); !errors.Is(err, confirm.ErrNotRememberable) || !strings.Contains(err.Error(), "for the persona instead") {
		t.Errorf("class rule without a class key: %v", err)
	}
	if _, err := old.RememberRule(); err != nil {
		t.Errorf("persona rule of an old record: %v", err)
	}
	if _, err := c.RememberRuleIn("everywhere"); !errors.Is(err, confirm.ErrNotRememberable) {
		t.Errorf("unknown overlay: %v", err)
	}
}

// forgeChoice stores a learned allow for o directly, as an old virgo-tui or
// a hand-edited database might have: the registry must still not use it
// where remembering is refused.
func forgeChoice(t *testing.T, q *Queue, p *confirm.Policy, o confirm.Operation, b confirm.BoundaryID, where confirm.Remember) confirm.Choice {
	t.Helper()
	ch := confirm.Choice{Key: confirm.PromptKey{StampHash: p.Hash(), HandlerAction: o.HandlerAction, Target: o.Target, Shape: o.Shape},
		Verdict: confirm.Allow, Boundary: b, Persona: p.Address(), Profile: p.Profile(), Where: where, Decider: henry, ConfirmationID: "c-forged"}
	if where == confirm.RememberClass {
		ch.Key.StampHash, ch.Key.ClassKey = "", p.Keys().ClassKey
	}
	val, err := json.Marshal(ch)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.st.Txn(context.Background(), nil, []store.Op{store.Put(choiceKey(ch), val)}); err != nil {
		t.Fatal(err)
	}
	return ch
}

// Spec footnotes ¹ ²: a secretary's resolve_decision relays
// one explicit decision of its bound human, a coordinator's one decision of
// its lane approver; "Neither class self-originates a resolution." Each
// needs its own decision: remembering one is refused with the reason, and a
// stored remembered choice never turns one into an allow. The same holds for
// the other confirmations that are never remembered (credential or
// permission changes, a deputy outside its assigned tasks).
func TestFootnoteRelaysAreNeverRemembered(t *testing.T) {
	ctx := context.Background()
	ada := confirm.Principal{Kind: confirm.PrincipalHuman, Name: "ada"}
	for _, c := range []struct {
		name, address, tool, target string
		shape                       stamp.Shape
		boundary                    confirm.BoundaryID
		authority                   confirm.Principal
		why                         string
	}{
		{"secretary relay", "root/secretary", "resolve_decision", "decision:work/core/d-1", stamp.ShapeRecordWrite,
			confirm.BoundaryRelayedResolution, henry, "footnote 1"},
		{"coordinator relay", "work/coordinator", "resolve_decision", "decision:work/core/d-1", stamp.ShapeRecordWrite,
			confirm.BoundaryLaneApproval, ada, "footnote 2"},
		{"credential change", "work/core/lead", "workspace_write", "path:memory/notes.md", stamp.ShapeCredentialChange,
			confirm.BoundaryCredentialOrPermission, henry, "standing grant"},
		{"deputy outside its task", "work/core/deputy", "report_task", "task:work/core/t-9", stamp.ShapeRecordWrite,
			confirm.BoundaryDeputyScope, confirm.PersonaPrincipal("work/core/lead"), "confirm assign"},
	} {
		t.Run(c.name, func(t *testing.T) {
			q, _ := queueFor(t, Options{Seats: seats{"work/core/lead": "Heze#1"}})
			p := policyFor(t, c.address, confirm.Options{})
			me := confirm.PersonaPrincipal(p.Address())
			o := op(t, p, c.tool, c.target, c.shape)
			conf := mustRequest(t, q, me, p, o, "c1").Confirmation
			if conf == nil || conf.Boundary != c.boundary {
				t.Fatalf("request: %+v, want a confirmation at %s", conf, c.boundary)
			}
			for _, where := range []confirm.Remember{confirm.RememberPersona, confirm.RememberClass} {
				_, err := conf.RememberRuleIn(where)
				if !errors.Is(err, confirm.ErrNotRememberable) || !strings.Contains(err.Error(), c.why) {
					t.Errorf("RememberRuleIn(%s): %v, want ErrNotRememberable saying %q", where, err, c.why)
				}
				if _, err := commitApprove(ctx, q, c.authority, conf.ID, where); !errors.Is(err, confirm.ErrNotRememberable) {
					t.Errorf("approve --remember %s: %v, want ErrNotRememberable", where, err)
				}
				if _, err := commitDeny(ctx, q, c.authority, conf.ID, "no", where); !errors.Is(err, confirm.ErrNotRememberable) {
					t.Errorf("deny --remember %s: %v, want ErrNotRememberable", where, err)
				}
			}
			if got, _ := q.Get(ctx, conf.ID); got.State != confirm.StatePending {
				t.Fatalf("a refused remember decided the confirmation: %s", got.State)
			}
			// Stored allow choices (persona layer and class overlay) do not
			// turn it into an allow: not in a policy, not through the queue.
			var forged []confirm.Choice
			for _, where := range []confirm.Remember{confirm.RememberPersona, confirm.RememberClass} {
				forged = append(forged, forgeChoice(t, q, p, o, c.boundary, where))
			}
			lp, err := confirm.NewPolicy(p.Stamp(), p.Hash(), confirm.Options{Learned: forged})
			if err != nil {
				t.Fatal(err)
			}
			if d := lp.Authorize(o); d.Verdict != confirm.Confirm || d.Remembered || d.Boundary != c.boundary {
				t.Fatalf("policy with a stored allow: %s", d)
			}
			if r := mustRequest(t, q, me, p, o, "c2"); r.Status != confirm.StatusUnknown || r.Decision.Remembered || r.Confirmation == nil {
				t.Fatalf("queue with a stored allow: %+v", r)
			}
			stale, err := q.Prompts().Review(ctx, p.Address(), p.Profile(), confirm.Keys{StampHash: "sha256:other", ClassKey: "sha256:other"})
			if err != nil || len(stale) != 2 {
				t.Fatalf("review: %+v, %v", stale, err)
			}
			if _, err := q.Prompts().CarryForward(ctx, henry, stale[0], p.Keys()); !errors.Is(err, confirm.ErrNotRememberable) {
				t.Errorf("carrying forward a choice that may not be remembered: %v", err)
			}
		})
	}
}

// rehash indexes a changed copy of a stamp under its new canonical hash.
func rehash(t *testing.T, st stamp.Stamp, change func(*stamp.Stamp)) *confirm.Policy {
	t.Helper()
	st.Tools = append([]stamp.Tool(nil), st.Tools...)
	st.Workspace.MutablePaths = append([]string(nil), st.Workspace.MutablePaths...)
	change(&st)
	b, err := stamp.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	hash, err := stamp.Hash(b)
	if err != nil {
		t.Fatal(err)
	}
	p, err := confirm.NewPolicy(&st, hash, confirm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Spec: "A prompt that is genuinely class-common may
// instead live in the shared class overlay." A class-overlay choice is keyed
// by the stamp's capability content, not the persona's identity: it matches
// every persona of the class with the same capabilities (another seat, a
// later generation), and none whose capabilities or routing differ; a
// change makes it stale for the persona it was learned for.
func TestClassOverlayIsSharedByTheClass(t *testing.T) {
	ctx := context.Background()
	q, _ := queueFor(t, Options{})
	learner := policyFor(t, "root/secretary", confirm.Options{})
	peer := policyFor(t, "home/secretary", confirm.Options{})
	st2, hash2 := confirmtest.BuildStamp(t, "root/secretary", 2)
	nextGen, err := confirm.NewPolicy(st2, hash2, confirm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	otherHuman := rehash(t, *peer.Stamp(), func(s *stamp.Stamp) { s.Authority.Human = "human:ada" })
	morePaths := rehash(t, *learner.Stamp(), func(s *stamp.Stamp) { s.Workspace.MutablePaths = append(s.Workspace.MutablePaths, "notes/**") })
	fewerTools := rehash(t, *peer.Stamp(), func(s *stamp.Stamp) { s.Tools = s.Tools[1:] })
	if learner.Hash() == peer.Hash() || learner.Keys().ClassKey != peer.Keys().ClassKey || learner.Keys().ClassKey != nextGen.Keys().ClassKey {
		t.Fatalf("same capabilities, different identity: keys %+v %+v %+v", learner.Keys(), peer.Keys(), nextGen.Keys())
	}
	for name, p := range map[string]*confirm.Policy{"bound human": otherHuman, "mutable paths": morePaths, "tools": fewerTools} {
		if p.Keys().ClassKey == learner.Keys().ClassKey {
			t.Errorf("a changed %s keeps the class key", name)
		}
	}

	publish := func(p *confirm.Policy) confirm.Operation {
		return op(t, p, "publish_deployment_v1", "external:https://example.org/notes", stamp.ShapePublishExternal)
	}
	c := mustRequest(t, q, confirm.PersonaPrincipal(learner.Address()), learner, publish(learner), "c1").Confirmation
	if _, err := commitApprove(ctx, q, henry, c.ID, confirm.RememberClass); err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]*confirm.Policy{"another seat": peer, "a later generation": nextGen,
		"a changed bound human": otherHuman, "changed mutable paths": morePaths} {
		shared := p.Keys().ClassKey == learner.Keys().ClassKey
		r := mustRequest(t, q, confirm.PersonaPrincipal(p.Address()), learnedPolicy(t, q, p), publish(p), "c-"+strings.ReplaceAll(name, " ", "-"))
		if got := r.Status == confirm.StatusAllowed && r.Decision.Remembered; got != shared {
			t.Errorf("%s through the queue: %+v, want remembered allow %v", name, r, shared)
		}
		active, err := q.Prompts().Active(ctx, p.Address(), p.Profile(), p.Keys())
		if err != nil {
			t.Fatal(err)
		}
		lp, err := confirm.NewPolicy(p.Stamp(), p.Hash(), confirm.Options{Learned: active})
		if err != nil {
			t.Fatal(err)
		}
		if d := lp.Authorize(publish(p)); (d.Verdict == confirm.Allow && d.Remembered) != shared {
			t.Errorf("%s through a policy: %s, want remembered allow %v", name, d, shared)
		}
	}
	// The learner's capabilities changed: its class choice is stale for it,
	// and a human carries it forward to the new class key.
	stale, err := q.Prompts().Review(ctx, morePaths.Address(), morePaths.Profile(), morePaths.Keys())
	if err != nil || len(stale) != 1 || stale[0].Where != confirm.RememberClass {
		t.Fatalf("review after a change: %+v, %v", stale, err)
	}
	moved, err := q.Prompts().CarryForward(ctx, henry, stale[0], morePaths.Keys())
	if err != nil || moved.Key.ClassKey != morePaths.Keys().ClassKey || moved.Key.StampHash != "" {
		t.Fatalf("carried forward: %+v, %v", moved, err)
	}
	active, _ := q.Prompts().Active(ctx, morePaths.Address(), morePaths.Profile(), morePaths.Keys())
	lp, _ := confirm.NewPolicy(morePaths.Stamp(), morePaths.Hash(), confirm.Options{Learned: active})
	if d := lp.Authorize(publish(morePaths)); d.Verdict != confirm.Allow || !d.Remembered {
		t.Fatalf("after carry-forward: %s", d)
	}
}
