package usecase

import (
	"context"
	"fmt"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// LearnKeys are the keys p's learned choices match under now: its stamp
// hash and the class key of its stamp, as its policy index keeps them
// (computed once per generation and hash; a first use reads the stamp
// under ctx).
func (u *Cases) LearnKeys(ctx context.Context, p registry.Persona) (confirm.Keys, error) {
	pol, err := u.stampPolicy(ctx, p)
	if err != nil {
		return confirm.Keys{}, err
	}
	return pol.Keys(), nil
}

// staleChoice finds the learned choice choiceID among the stale ones of
// the persona ref names: only a choice learned under another stamp (or
// class key) than the persona's current one is reviewed. It returns the
// persona's current keys.
func (u *Cases) staleChoice(ctx context.Context, ref, choiceID string) (confirm.Keys, confirm.Choice, error) {
	if ref == "" {
		return confirm.Keys{}, confirm.Choice{}, fmt.Errorf("name the persona whose stale choice this is: send \"persona\" (an address, name or id): %w", ErrPersonaRequired)
	}
	p, err := u.Resolve(ctx, ref)
	if err != nil {
		return confirm.Keys{}, confirm.Choice{}, err
	}
	keys, err := u.LearnKeys(ctx, p)
	if err != nil {
		return keys, confirm.Choice{}, err
	}
	stale, err := u.queue.Prompts().Review(ctx, p.Address, string(p.Profile), keys)
	if err != nil {
		return keys, confirm.Choice{}, err
	}
	for _, c := range stale {
		if c.ID() == choiceID {
			return keys, c, nil
		}
	}
	return keys, confirm.Choice{}, fmt.Errorf("choice %s of %s: %w among its stale choices (list them: GET /v1/prompts?persona=%s&review=true)",
		choiceID, p.Address, confirm.ErrNoChoice, p.Address)
}

// ReviewPrompt resolves a stale learned choice of the persona ref names on
// a human's word: carried forward (re-keyed to the persona's current stamp
// hash; the answer is the choice as carried forward) or dropped (the
// answer is the choice as it was). The change, its audit entry and the
// idempotency record are one transaction; a choice someone else resolved
// meanwhile is confirm.ErrNoChoice.
func (u *Cases) ReviewPrompt(ctx context.Context, k Key, decider Caller, ref, choiceID string, carry bool) (confirm.Choice, error) {
	var out confirm.Choice
	err := u.commit(ctx, UseReview, "review learned choice "+choiceID, func() (store.Plan, error) {
		if ok, err := u.replayed(ctx, k, &out); ok || err != nil {
			return store.Plan{}, err
		}
		keys, c, err := u.staleChoice(ctx, ref, choiceID)
		if err != nil {
			return store.Plan{}, err
		}
		var plan store.Plan
		if carry {
			c, plan, err = u.queue.Prompts().PlanCarryForward(ctx, decider.Principal, c, keys)
		} else {
			plan, err = u.queue.Prompts().PlanDrop(ctx, decider.Principal, c, keys)
		}
		if err != nil {
			return store.Plan{}, err
		}
		out = c
		rec, err := u.record(k, out)
		plan.Join(rec)
		return plan, err
	})
	if err != nil {
		return confirm.Choice{}, err
	}
	return out, nil
}
