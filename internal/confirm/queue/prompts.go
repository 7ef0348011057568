package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
)

// choiceKey is where the choice lives.
func choiceKey(c confirm.Choice) string {
	if c.Where == confirm.RememberClass {
		return PrefixPromptsClass + c.Profile + "/" + c.ID()
	}
	return PrefixPromptsPersona + c.Persona + "/" + c.ID()
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
func (r *Prompts) List(ctx context.Context, persona, profile string) ([]confirm.Choice, error) {
	own, class, err := r.Layers(ctx, persona, profile)
	for _, c := range class {
		if c.Persona == persona {
			own = append(own, c)
		}
	}
	return own, err
}

// Layers reads a persona's experience layer and its class's whole overlay.
func (r *Prompts) Layers(ctx context.Context, persona, profile string) (own, class []confirm.Choice, err error) {
	if own, err = r.list(ctx, PrefixPromptsPersona+persona+"/"); err != nil {
		return nil, nil, err
	}
	class, err = r.list(ctx, PrefixPromptsClass+profile+"/")
	return own, class, err
}

// All returns every learned choice of the installation.
func (r *Prompts) All(ctx context.Context) ([]confirm.Choice, error) {
	own, err := r.list(ctx, PrefixPromptsPersona)
	if err != nil {
		return nil, err
	}
	class, err := r.list(ctx, PrefixPromptsClass)
	return append(own, class...), err
}

func (r *Prompts) list(ctx context.Context, prefix string) ([]confirm.Choice, error) {
	kvs, err := r.st.List(ctx, prefix)
	if err != nil {
		return nil, fmt.Errorf("list learned choices: %w", err)
	}
	out := make([]confirm.Choice, 0, len(kvs))
	for _, kv := range kvs {
		var c confirm.Choice
		if err := strictjson.DecodeOpen(kv.Value, &c); err != nil {
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
func (r *Prompts) Active(ctx context.Context, persona, profile string, current confirm.Keys) ([]confirm.Choice, error) {
	own, class, err := r.Layers(ctx, persona, profile)
	var out []confirm.Choice
	for _, c := range append(own, class...) {
		if c.Current(current) {
			out = append(out, c)
		}
	}
	return out, err
}

// Review lists the persona's stale choices: its own learned under another
// stamp hash, and the class-overlay ones learned for it under another class
// key. A human resolves each with CarryForward or Drop.
func (r *Prompts) Review(ctx context.Context, persona, profile string, current confirm.Keys) ([]confirm.Choice, error) {
	all, err := r.List(ctx, persona, profile)
	var out []confirm.Choice
	for _, c := range all {
		if !c.Current(current) {
			out = append(out, c)
		}
	}
	return out, err
}

// CarryForward re-keys a stale choice to the persona's current keys (a
// class-overlay choice to its current class key, which moves it: personas
// still under the old key ask again), on a human's word; the stale one is
// removed in the same transaction, with an audit entry.
func (r *Prompts) CarryForward(ctx context.Context, decider confirm.Principal, c confirm.Choice, current confirm.Keys) (confirm.Choice, error) {
	next, plan, err := r.PlanCarryForward(ctx, decider, c, current)
	if err != nil {
		return confirm.Choice{}, err
	}
	return next, r.commit(ctx, "prompt-carried-forward", c, plan)
}

// PlanCarryForward plans what CarryForward commits.
func (r *Prompts) PlanCarryForward(ctx context.Context, decider confirm.Principal, c confirm.Choice, current confirm.Keys) (confirm.Choice, store.Plan, error) {
	if confirm.NotRemembered(confirm.KindOperation, c.Boundary) != "" {
		return confirm.Choice{}, store.Plan{}, fmt.Errorf("carry forward learned choice for %s at %s: %s: %w", c.Persona, c.Boundary,
			c.Boundary.Info().NotRemembered, confirm.ErrNotRememberable)
	}
	next := c.Rekeyed(current)
	next.Decider = decider
	next.CreatedAt = r.now().UTC()
	val, err := json.Marshal(next)
	if err != nil {
		return confirm.Choice{}, store.Plan{}, err
	}
	plan, err := r.planResolve(ctx, decider, c, current, "prompt-carried-forward", store.Put(choiceKey(next), val))
	return next, plan, err
}

// Drop removes a stale choice on a human's word, with an audit entry.
func (r *Prompts) Drop(ctx context.Context, decider confirm.Principal, c confirm.Choice, current confirm.Keys) error {
	plan, err := r.PlanDrop(ctx, decider, c, current)
	if err != nil {
		return err
	}
	return r.commit(ctx, "prompt-dropped", c, plan)
}

// PlanDrop plans what Drop commits.
func (r *Prompts) PlanDrop(ctx context.Context, decider confirm.Principal, c confirm.Choice, current confirm.Keys) (store.Plan, error) {
	return r.planResolve(ctx, decider, c, current, "prompt-dropped")
}

func (r *Prompts) commit(ctx context.Context, event string, c confirm.Choice, plan store.Plan) error {
	if _, err := plan.Commit(ctx, r.st); err != nil {
		return fmt.Errorf("%s learned choice for %s: %w", event, c.Persona, err)
	}
	return nil
}

func (r *Prompts) planResolve(ctx context.Context, decider confirm.Principal, c confirm.Choice, current confirm.Keys, event string, extra ...store.Op) (store.Plan, error) {
	if decider.Kind != confirm.PrincipalHuman {
		return store.Plan{}, fmt.Errorf("%s learned choice for %s: %w", event, c.Persona, confirm.ErrModelDecision)
	}
	if c.Current(current) {
		return store.Plan{}, fmt.Errorf("%s learned choice for %s: %w", event, c.Persona, confirm.ErrNotStale)
	}
	kv, err := r.st.Get(ctx, choiceKey(c))
	if errors.Is(err, store.ErrNotFound) {
		return store.Plan{}, fmt.Errorf("%s learned choice for %s: %w", event, c.Persona, confirm.ErrNoChoice)
	}
	if err != nil {
		return store.Plan{}, err
	}
	now := r.now().UTC()
	entry, err := json.Marshal(confirm.AuditEntry{Time: now, Event: event, ConfirmationID: c.ConfirmationID, Actor: decider,
		Persona: c.Persona, Operation: c.Key.HandlerAction + " " + string(c.Key.Shape) + " on " + c.Key.Target.String(),
		Boundary: c.Boundary, StampHash: current.StampHash, Via: confirm.ViaOf(ctx)})
	if err != nil {
		return store.Plan{}, err
	}
	ops := append([]store.Op{{Key: choiceKey(c), Delete: true}}, extra...)
	ops = append(ops, store.Put(auditKey(now, c.ConfirmationID, event), entry))
	return store.Plan{Conds: []store.Cond{{Key: choiceKey(c), ModRev: kv.ModRev}}, Ops: ops}, nil
}
