package confirm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// Approve approves a confirmation; see Decide.
func (q *Queue) Approve(ctx context.Context, decider Principal, id string, remember Remember) (*Confirmation, error) {
	return q.Decide(ctx, decider, id, true, remember, "")
}

// Deny denies a confirmation with a reason; see Decide.
func (q *Queue) Deny(ctx context.Context, decider Principal, id, reason string, remember Remember) (*Confirmation, error) {
	return q.Decide(ctx, decider, id, false, remember, reason)
}

// Decide records decider's decision on confirmation id and returns the
// confirmation as committed. The rules, in order, each a named error:
// a decided confirmation is terminal (ErrAlreadyDecided); a pending one past
// its expiry is recorded expired (ErrExpired, counts as denied); nobody
// decides their own request (ErrSelfDecision); a persona never decides at a
// global boundary (ErrModelDecision); an unroutable one waits
// (ErrUnroutable); only the routed authority decides (ErrNotAuthority). The
// decision record and its audit entry — and, with remember, the learned
// choice — commit in one durable compare-and-swap transaction, so of many
// concurrent deciders exactly one wins and the rest see ErrAlreadyDecided.
func (q *Queue) Decide(ctx context.Context, decider Principal, id string, approve bool, remember Remember, reason string) (*Confirmation, error) {
	if !approve && reason == "" {
		return nil, fmt.Errorf("deny %s: %w", id, ErrNoReason)
	}
	if remember != RememberNone && remember != RememberPersona && remember != RememberClass {
		return nil, fmt.Errorf("remember %q: want persona or class: %w", remember, ErrNotRememberable)
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, kv, err := q.load(ctx, id)
		if err != nil {
			return nil, err
		}
		now := q.now().UTC()
		if c.State.Terminal() {
			return c, fmt.Errorf("confirmation %s is %s: %w", id, c.State, ErrAlreadyDecided)
		}
		if c.effective(now) == StateExpired {
			err := q.commit(ctx, c, kv, DecisionRecord{Decision: StateExpired, Decider: SystemPrincipal("expiry"),
				Time: now, Reason: "expired at " + c.ExpiresAt.Format(time.RFC3339)}, RememberNone)
			if errors.Is(err, store.ErrConflict) {
				continue
			}
			if err != nil {
				return nil, err
			}
			return c, fmt.Errorf("confirmation %s: %w", id, ErrExpired)
		}
		if err := mayDecide(decider, c, remember); err != nil {
			return c, err
		}
		rec := DecisionRecord{Decision: StateDenied, Decider: decider, Time: now, Remember: remember, Reason: reason}
		if approve {
			rec.Decision = StateApproved
		}
		err = q.commit(ctx, c, kv, rec, remember)
		if errors.Is(err, store.ErrConflict) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return c, nil
	}
}

// mayDecide applies the rules of who decides.
func mayDecide(decider Principal, c *Confirmation, remember Remember) error {
	switch {
	case decider.IsZero() || decider.Kind == PrincipalSystem:
		return fmt.Errorf("decide %s: %w", c.ID, ErrNotAuthority)
	case decider == c.Requester:
		return fmt.Errorf("%s deciding %s: %w", decider, c.ID, ErrSelfDecision)
	case decider.IsModel() && decider.Name == c.Operation.Persona:
		return fmt.Errorf("%s deciding its own operation %s: %w", decider, c.ID, ErrSelfDecision)
	case decider.IsModel() && c.Boundary.Info().Global:
		return fmt.Errorf("%s deciding %s at %s: %w", decider, c.ID, c.Boundary, ErrModelDecision)
	case c.Unroutable:
		return fmt.Errorf("decide %s (%s): %w", c.ID, c.AuthorityBinding, ErrUnroutable)
	case decider != c.Authority:
		return fmt.Errorf("%s deciding %s routed to %s: %w", decider, c.ID, c.Authority, ErrNotAuthority)
	case remember != RememberNone:
		_, err := c.RememberRuleIn(remember)
		return err
	}
	return nil
}

// commit writes the terminal state, the audit entry and any learned choice
// in one transaction conditioned on the confirmation being unchanged.
func (q *Queue) commit(ctx context.Context, c *Confirmation, kv store.KV, rec DecisionRecord, remember Remember) error {
	rec.Requester, rec.Authority, rec.AuthorityBinding = c.Requester, c.Authority, c.AuthorityBinding
	rec.Operation, rec.StampHash, rec.CorrelationID = c.Operation, c.StampHash, c.CorrelationID
	c.State, c.Decision = rec.Decision, &rec
	val, err := json.Marshal(c)
	if err != nil {
		return err
	}
	a, err := auditOp(AuditEntry{Time: rec.Time, Event: string(rec.Decision), ConfirmationID: c.ID,
		CorrelationID: c.CorrelationID, Actor: rec.Decider, Persona: c.Operation.Persona, Operation: c.Operation.String(),
		Boundary: c.Boundary, Authority: c.Authority, StampHash: c.StampHash, Remember: remember, Reason: rec.Reason})
	if err != nil {
		return err
	}
	ops := []store.Op{store.Put(keyConfirmation(c.ID), val), a}
	if remember != RememberNone {
		op, err := learnedOp(c, rec, remember)
		if err != nil {
			return err
		}
		ops = append(ops, op)
	}
	if _, err := q.st.Txn(ctx, []store.Cond{{Key: keyConfirmation(c.ID), ModRev: kv.ModRev}}, ops); err != nil {
		return fmt.Errorf("commit decision on %s: %w", c.ID, err)
	}
	return nil
}

// learnedOp is the prompt-registry write of a remembered decision: exactly
// c's RememberRuleIn(where).
func learnedOp(c *Confirmation, rec DecisionRecord, where Remember) (store.Op, error) {
	rule, err := c.RememberRuleIn(where)
	if err != nil {
		return store.Op{}, err
	}
	ch := Choice{
		Key: rule.Key, Verdict: Deny, Boundary: rule.Boundary, Persona: rule.Persona, Profile: rule.Profile, Where: rule.Where,
		Decider: rec.Decider, ConfirmationID: c.ID, CreatedAt: rec.Time, Reason: rec.Reason,
	}
	if rec.Decision == StateApproved {
		ch.Verdict = Allow
	}
	val, err := json.Marshal(ch)
	if err != nil {
		return store.Op{}, err
	}
	return store.Put(ch.storeKey(), val), nil
}

// Sweep records every pending confirmation past its expiry as expired, with
// its audit entry, and returns how many it expired.
func (q *Queue) Sweep(ctx context.Context) (int, error) {
	pending, err := q.List(ctx, true)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, c := range pending {
		if c.State != StatePending || c.effective(q.now()) != StateExpired {
			continue
		}
		_, err := q.Decide(ctx, SystemPrincipal("expiry"), c.ID, false, RememberNone, "expired")
		switch {
		case errors.Is(err, ErrExpired):
			n++
		case errors.Is(err, ErrAlreadyDecided):
		default:
			return n, err
		}
	}
	return n, nil
}

// Wait blocks until confirmation id is terminal (as it counts now: expiry
// ends a wait too) or ctx ends, and returns it.
func (q *Queue) Wait(ctx context.Context, id string) (*Confirmation, error) {
	for {
		rev, err := q.st.Rev(ctx)
		if err != nil {
			return nil, err
		}
		c, _, err := q.load(ctx, id)
		if err != nil {
			return nil, err
		}
		if c.effective(q.now()).Terminal() {
			return c, nil
		}
		if err := q.waitChange(ctx, id, rev, c.ExpiresAt.Sub(q.now())); err != nil {
			return c, err
		}
	}
}

func (q *Queue) waitChange(ctx context.Context, id string, rev int64, untilExpiry time.Duration) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, err := q.st.Watch(wctx, keyConfirmation(id), rev)
	if err != nil {
		return err
	}
	timer := time.NewTimer(max(untilExpiry, 0))
	defer timer.Stop()
	select {
	case <-ch:
	case <-timer.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}
