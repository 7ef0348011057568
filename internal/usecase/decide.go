package usecase

import (
	"context"
	"errors"
	"fmt"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/confirm/queue"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// Decide records decider's decision on confirmation id and carries out its
// lifecycle effect: an approved activation activates the generation, a
// denied one refuses it, an approved retirement retires it. The decision
// record, its audit entry, any learned choice and the effect on the
// generation are one transaction, committed (and synced) before the answer:
// there is no decided-but-not-carried-out state to repair later. The rules
// of who decides are queue.Queue.PlanDecide's; a confirmation found
// expired is recorded expired (refusing a pending generation with it) and
// the decision is refused with confirm.ErrExpired.
//
// With a Key, the decided confirmation is recorded in the same transaction,
// and the same decision sent again with that Key is answered with it — "approved by
// you", not "already decided" (see Key).
func (u *Cases) Decide(ctx context.Context, k Key, decider confirm.Principal, id string, approve bool, remember confirm.Remember, reason string) (*confirm.Confirmation, error) {
	var d queue.Decided
	var replayed *confirm.Confirmation
	var rest overflow
	err := u.commit(ctx, UseDecide, "decide "+id, func() (store.Plan, error) {
		if ok, err := u.replayed(ctx, k, &replayed); ok || err != nil {
			return store.Plan{}, err
		}
		var err error
		if d, err = u.queue.PlanDecide(ctx, decider, id, approve, remember, reason); err != nil {
			return store.Plan{}, err
		}
		var plan store.Plan
		plan, rest, err = u.withEffect(ctx, d)
		if err != nil || d.Expired {
			return plan, err // an expiry is not the decision asked for: nothing to replay
		}
		// A decided confirmation is terminal, never written again: its
		// record, written by this transaction, is the original answer.
		rec, err := u.recordRef(k, queue.ConfirmationKey(d.Confirmation.ID))
		plan.Join(rec)
		return plan, err
	})
	switch {
	case replayed != nil:
		return replayed, nil
	case err != nil:
		return d.Confirmation, err
	}
	u.finish(ctx, rest)
	if c := d.Confirmation; c != nil && c.PersonaID != "" && d.Err() == nil && !d.Expired {
		if e, _ := confirm.LifecycleEffect(c); e == confirm.EffectRetire {
			u.keepRetired(ctx, c.PersonaID)
		}
	}
	return d.Confirmation, d.Err()
}

// withEffect joins a planned decision with the plan of its lifecycle
// effect. What the effect reaches beyond the persona — the confirmations
// re-routed to a new holder, or withdrawn with a retired one — joins the
// same transaction as far as the store's limits leave room; rest is what
// did not fit, for finish.
func (u *Cases) withEffect(ctx context.Context, d queue.Decided) (plan store.Plan, rest overflow, err error) {
	plan = d.Plan
	c := d.Confirmation
	var effect store.Plan
	switch e, reason := confirm.LifecycleEffect(c); e {
	case confirm.EffectNone:
		return plan, rest, nil
	case confirm.EffectActivate:
		var p registry.Persona
		p, effect, err = u.reg.PlanActivate(ctx, c.PersonaID)
		if err == nil && !effect.Empty() {
			// The seat is filled: what waited on it is routed to the new
			// holder in the same transaction.
			rest = overflow{what: "re-route the confirmations waiting on " + p.Address, plan: func(ctx context.Context, max int) (store.Plan, int, error) {
				return u.queue.PlanReroute(ctx, p.Address, p.Name, max)
			}, per: queue.RerouteOps}
		}
	case confirm.EffectRefuse:
		_, effect, err = u.reg.PlanRefuse(ctx, c.PersonaID, reason)
	case confirm.EffectRetire:
		var p registry.Persona
		p, effect, err = u.reg.PlanRetire(ctx, c.PersonaID, reason)
		if err == nil {
			// Retirement closes what the generation left open and
			// leaves what waits on its seat unroutable, in the same
			// transaction.
			rest = retirement(u.queue, p, c.ID, c.Decision.Decider, "withdrawn: "+c.Operation.Persona+" was retired (confirmation "+c.ID+")")
		}
	}
	// A generation that already left its seat by another way (retired
	// without a stamp, say) keeps its state: the decision is still recorded.
	if errors.Is(err, registry.ErrRetired) || errors.Is(err, registry.ErrRefused) {
		return plan, overflow{}, nil
	}
	if err == nil && rest.plan != nil {
		plan.Join(effect)
		var more store.Plan
		more, rest.left, err = rest.plan(ctx, rest.room(plan))
		effect = more
	}
	if err != nil {
		return store.Plan{}, overflow{}, fmt.Errorf("confirmation %s (%s of %s): %w", c.ID, c.Kind, c.Operation.Persona, err)
	}
	plan.Join(effect)
	return plan, rest, nil
}

// Sweep records every pending confirmation past its expiry as expired, each
// with its audit entry and its lifecycle effect (an expired activation
// refuses its generation) in one transaction, and returns how many it
// expired. It then withdraws what a retired generation still has open
// and marks unroutable what still waits on an empty seat (a retirement
// whose follow-up transactions a crash cut short).
func (u *Cases) Sweep(ctx context.Context) (int, error) {
	pending, err := u.queue.Undecided(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, c := range pending {
		if c.StateAt(u.queue.Now()) != confirm.StateExpired {
			continue
		}
		_, err := u.Decide(ctx, Key{}, confirm.SystemPrincipal("expiry"), c.ID, false, confirm.RememberNone, "expired")
		switch {
		case errors.Is(err, confirm.ErrExpired):
			n++
		case errors.Is(err, confirm.ErrAlreadyDecided):
		default:
			return n, err
		}
	}
	u.closeRetired(ctx, pending)
	u.closeVacated(ctx, pending)
	return n, nil
}
