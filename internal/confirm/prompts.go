package confirm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// Remember is where a decision is remembered, if at all.
type Remember string

// The places a learned choice lives (spec: "Learned prompt fingerprints live
// in the persona experience layer. A prompt that is genuinely class-common
// may instead live in the shared class overlay.").
const (
	RememberNone    Remember = ""
	RememberPersona Remember = "persona"
	RememberClass   Remember = "class"
)

// PromptKey is the exact key of a learned choice (spec: "keyed by stamp
// hash, handler action, normalized target scope, and operation shape"). A
// choice in the persona experience layer is keyed by its stamp hash; one in
// the class overlay by the class key (stamp.ClassKey) instead, so that it
// is shared by every persona of the class with the same capabilities.
type PromptKey struct {
	StampHash     string      `json:"stamp_hash,omitempty"`
	ClassKey      string      `json:"class_key,omitempty"`
	HandlerAction string      `json:"handler_action"`
	Target        Target      `json:"target"`
	Shape         stamp.Shape `json:"shape"`
}

// id is the key's store id; any change to any part changes it.
func (k PromptKey) id() string {
	under := k.StampHash
	if k.ClassKey != "" {
		under = "class " + k.ClassKey
	}
	return digest(under, k.HandlerAction, k.Target.String(), string(k.Shape))
}

// Choice is one learned decision of the prompt registry.
type Choice struct {
	Key PromptKey `json:"key"`
	// Verdict is Allow (a remembered approval) or Deny (a remembered denial).
	Verdict Verdict `json:"verdict"`
	// Boundary is the confirm boundary the choice answers.
	Boundary BoundaryID `json:"boundary"`
	// Persona is who it was learned for; Profile its class.
	Persona string `json:"persona"`
	Profile string `json:"profile"`
	// Where is the experience layer (persona) or the class overlay (class).
	Where          Remember  `json:"where"`
	Decider        Principal `json:"decider"`
	ConfirmationID string    `json:"confirmation_id"`
	CreatedAt      time.Time `json:"created_at"`
	Reason         string    `json:"reason,omitempty"`
}

// ID names the choice for review commands: its key's digest.
func (c Choice) ID() string { return c.Key.id() }

// current reports whether the choice matches under keys: a persona-layer
// choice by its stamp hash, a class-overlay one by its class key. A
// class-overlay choice stored before class keys existed has none, so it
// matches nothing until a human carries it forward.
func (c Choice) current(k Keys) bool {
	if c.Where == RememberClass {
		return c.Key.ClassKey != "" && c.Key.ClassKey == k.ClassKey
	}
	return c.Key.StampHash == k.StampHash
}

// rekeyed is the choice keyed under k instead.
func (c Choice) rekeyed(k Keys) Choice {
	if c.Where == RememberClass {
		c.Key.StampHash, c.Key.ClassKey = "", k.ClassKey
	} else {
		c.Key.StampHash, c.Key.ClassKey = k.StampHash, ""
	}
	return c
}

// apply turns a confirm decision into the remembered one. It is called only
// for confirm verdicts: a choice never turns a deny into an allow, and never
// reaches a tool the stamp does not expose (those are denied before). A
// confirmation that may not be remembered (a footnote relay, a credential
// change ...: notRemembered) is asked every time, whatever is stored.
func (c Choice) apply(d Decision) Decision {
	if notRemembered(KindOperation, d.Boundary) != "" {
		return d
	}
	if c.Verdict == Allow {
		return Decision{Verdict: Allow, Boundary: d.Boundary, Remembered: true,
			Reason: "remembered approval by " + c.Decider.String() + " (" + c.ConfirmationID + ")"}
	}
	return Decision{Verdict: Deny, Boundary: BoundaryRememberedDenial, Remembered: true,
		Reason: "remembered denial at " + d.Boundary.String() + " by " + c.Decider.String() + " (" + c.ConfirmationID + ")"}
}

// storeKey is where the choice lives.
func (c Choice) storeKey() string {
	if c.Where == RememberClass {
		return PrefixPromptsClass + c.Profile + "/" + c.Key.id()
	}
	return PrefixPromptsPersona + c.Persona + "/" + c.Key.id()
}

// Prompts is the prompt registry over a store.
type Prompts struct {
	st  store.Store
	now func() time.Time
}

// NewPrompts opens the prompt registry on st; now is the clock (nil: time.Now).
func NewPrompts(st store.Store, now func() time.Time) *Prompts {
	if now == nil {
		now = time.Now
	}
	return &Prompts{st: st, now: now}
}

// List returns every learned choice of a persona: those in its experience
// layer and the class-common ones learned for it, stale or not.
func (r *Prompts) List(ctx context.Context, persona, profile string) ([]Choice, error) {
	own, class, err := r.layers(ctx, persona, profile)
	for _, c := range class {
		if c.Persona == persona {
			own = append(own, c)
		}
	}
	return own, err
}

// layers reads a persona's experience layer and its class's whole overlay.
func (r *Prompts) layers(ctx context.Context, persona, profile string) (own, class []Choice, err error) {
	if own, err = r.list(ctx, PrefixPromptsPersona+persona+"/"); err != nil {
		return nil, nil, err
	}
	class, err = r.list(ctx, PrefixPromptsClass+profile+"/")
	return own, class, err
}

// All returns every learned choice of the installation.
func (r *Prompts) All(ctx context.Context) ([]Choice, error) {
	own, err := r.list(ctx, PrefixPromptsPersona)
	if err != nil {
		return nil, err
	}
	class, err := r.list(ctx, PrefixPromptsClass)
	return append(own, class...), err
}

func (r *Prompts) list(ctx context.Context, prefix string) ([]Choice, error) {
	kvs, err := r.st.List(ctx, prefix)
	if err != nil {
		return nil, fmt.Errorf("list learned choices: %w", err)
	}
	out := make([]Choice, 0, len(kvs))
	for _, kv := range kvs {
		var c Choice
		if err := json.Unmarshal(kv.Value, &c); err != nil {
			return nil, fmt.Errorf("learned choice %s: %w", kv.Key, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// Active returns the choices that match the persona under current (for
// Options.Learned): its own learned under its stamp hash, and the class
// overlay's learned under its class key, by whichever persona of the class.
// A changed stamp makes the others stale, and stale choices stop matching.
func (r *Prompts) Active(ctx context.Context, persona, profile string, current Keys) ([]Choice, error) {
	own, class, err := r.layers(ctx, persona, profile)
	var out []Choice
	for _, c := range append(own, class...) {
		if c.current(current) {
			out = append(out, c)
		}
	}
	return out, err
}

// Review lists the persona's stale choices: its own learned under another
// stamp hash, and the class-overlay ones learned for it under another class
// key. A human resolves each with CarryForward or Drop.
func (r *Prompts) Review(ctx context.Context, persona, profile string, current Keys) ([]Choice, error) {
	all, err := r.List(ctx, persona, profile)
	var out []Choice
	for _, c := range all {
		if !c.current(current) {
			out = append(out, c)
		}
	}
	return out, err
}

// CarryForward re-keys a stale choice to the persona's current keys (a
// class-overlay choice to its current class key, which moves it: personas
// still under the old key ask again), on a human's word; the stale one is
// removed in the same transaction, with an audit entry.
func (r *Prompts) CarryForward(ctx context.Context, decider Principal, c Choice, current Keys) (Choice, error) {
	next, plan, err := r.PlanCarryForward(ctx, decider, c, current)
	if err != nil {
		return Choice{}, err
	}
	return next, r.commit(ctx, "prompt-carried-forward", c, plan)
}

// PlanCarryForward plans what CarryForward commits.
func (r *Prompts) PlanCarryForward(ctx context.Context, decider Principal, c Choice, current Keys) (Choice, store.Plan, error) {
	if notRemembered(KindOperation, c.Boundary) != "" {
		return Choice{}, store.Plan{}, fmt.Errorf("carry forward learned choice for %s at %s: %s: %w", c.Persona, c.Boundary,
			c.Boundary.Info().NotRemembered, ErrNotRememberable)
	}
	next := c.rekeyed(current)
	next.Decider = decider
	next.CreatedAt = r.now().UTC()
	val, err := json.Marshal(next)
	if err != nil {
		return Choice{}, store.Plan{}, err
	}
	plan, err := r.planResolve(ctx, decider, c, current, "prompt-carried-forward", store.Put(next.storeKey(), val))
	return next, plan, err
}

// Drop removes a stale choice on a human's word, with an audit entry.
func (r *Prompts) Drop(ctx context.Context, decider Principal, c Choice, current Keys) error {
	plan, err := r.PlanDrop(ctx, decider, c, current)
	if err != nil {
		return err
	}
	return r.commit(ctx, "prompt-dropped", c, plan)
}

// PlanDrop plans what Drop commits.
func (r *Prompts) PlanDrop(ctx context.Context, decider Principal, c Choice, current Keys) (store.Plan, error) {
	return r.planResolve(ctx, decider, c, current, "prompt-dropped")
}

func (r *Prompts) commit(ctx context.Context, event string, c Choice, plan store.Plan) error {
	if _, err := plan.Commit(ctx, r.st); err != nil {
		return fmt.Errorf("%s learned choice for %s: %w", event, c.Persona, err)
	}
	return nil
}

func (r *Prompts) planResolve(ctx context.Context, decider Principal, c Choice, current Keys, event string, extra ...store.Op) (store.Plan, error) {
	if decider.Kind != PrincipalHuman {
		return store.Plan{}, fmt.Errorf("%s learned choice for %s: %w", event, c.Persona, ErrModelDecision)
	}
	if c.current(current) {
		return store.Plan{}, fmt.Errorf("%s learned choice for %s: %w", event, c.Persona, ErrNotStale)
	}
	kv, err := r.st.Get(ctx, c.storeKey())
	if errors.Is(err, store.ErrNotFound) {
		return store.Plan{}, fmt.Errorf("%s learned choice for %s: %w", event, c.Persona, ErrNoChoice)
	}
	if err != nil {
		return store.Plan{}, err
	}
	now := r.now().UTC()
	entry, err := json.Marshal(AuditEntry{Time: now, Event: event, ConfirmationID: c.ConfirmationID, Actor: decider,
		Persona: c.Persona, Operation: c.Key.HandlerAction + " " + string(c.Key.Shape) + " on " + c.Key.Target.String(),
		Boundary: c.Boundary, StampHash: current.StampHash, Via: ViaOf(ctx)})
	if err != nil {
		return store.Plan{}, err
	}
	ops := append([]store.Op{{Key: c.storeKey(), Delete: true}}, extra...)
	ops = append(ops, store.Put(auditKey(now, c.ConfirmationID, event), entry))
	return store.Plan{Conds: []store.Cond{{Key: c.storeKey(), ModRev: kv.ModRev}}, Ops: ops}, nil
}
