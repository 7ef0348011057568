package confirm

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// Decided is a decision read and planned but not committed: the
// confirmation as it will be stored and the guarded writes of its decision
// record, audit entry and any learned choice.
type Decided struct {
	Confirmation *Confirmation
	Plan         store.Plan
	// Expired: the confirmation was past its expiry. The plan records it
	// expired, and once that is committed the decision asked for is refused
	// (Err is ErrExpired).
	Expired bool
}

// Err is the answer to the decider once the plan is committed: nil, or
// ErrExpired when the confirmation had expired instead.
func (d Decided) Err() error {
	if d.Expired {
		return fmt.Errorf("confirmation %s: %w", d.Confirmation.ID, ErrExpired)
	}
	return nil
}

// PlanDecide reads confirmation id and plans decider's decision on it. The
// rules, in order, each a named error: a withdrawn confirmation is terminal
// (ErrWithdrawn, naming its state); a decided one is terminal
// (ErrAlreadyDecided, with the confirmation as decided); a pending one past
// its expiry is planned expired (Decided.Expired; counts as denied); nobody
// decides their own request (ErrSelfDecision); a persona never decides at a
// global boundary (ErrModelDecision); an unroutable one waits
// (ErrUnroutable); only the routed authority decides (ErrNotAuthority). The
// plan is conditioned on the confirmation being unchanged, so of many
// concurrent deciders exactly one commits and the rest, planning again, see
// ErrAlreadyDecided.
func (q *Queue) PlanDecide(ctx context.Context, decider Principal, id string, approve bool, remember Remember, reason string) (Decided, error) {
	if !approve && reason == "" {
		return Decided{}, fmt.Errorf("deny %s: %w", id, ErrNoReason)
	}
	if remember != RememberNone && remember != RememberPersona && remember != RememberClass {
		return Decided{}, fmt.Errorf("remember %q: want persona or class: %w", remember, ErrNotRememberable)
	}
	c, kv, err := q.load(ctx, id)
	if err != nil {
		return Decided{}, err
	}
	now := q.now().UTC()
	if c.State == StateWithdrawn {
		return Decided{Confirmation: c}, fmt.Errorf("confirmation %s is %s: %w", id, c.State, ErrWithdrawn)
	}
	if c.State.Terminal() {
		return Decided{Confirmation: c}, fmt.Errorf("confirmation %s is %s: %w", id, c.State, ErrAlreadyDecided)
	}
	if c.effective(now) == StateExpired {
		plan, err := q.planDecision(c, kv, DecisionRecord{Decision: StateExpired, Decider: SystemPrincipal("expiry"),
			Time: now, Reason: "expired at " + c.ExpiresAt.Format(time.RFC3339)}, RememberNone)
		return Decided{Confirmation: c, Plan: plan, Expired: true}, err
	}
	if err := mayDecide(decider, c, remember); err != nil {
		return Decided{Confirmation: c}, err
	}
	rec := DecisionRecord{Decision: StateDenied, Decider: decider, Time: now, Remember: remember, Reason: reason, Via: ViaOf(ctx)}
	if approve {
		rec.Decision = StateApproved
	}
	plan, err := q.planDecision(c, kv, rec, remember)
	return Decided{Confirmation: c, Plan: plan}, err
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

// planDecision plans the terminal state, the audit entry and any learned
// choice, conditioned on the confirmation being unchanged; it sets c to the
// state it plans.
func (q *Queue) planDecision(c *Confirmation, kv store.KV, rec DecisionRecord, remember Remember) (store.Plan, error) {
	rec.Requester, rec.Authority, rec.AuthorityBinding = c.Requester, c.Authority, c.AuthorityBinding
	rec.Operation, rec.StampHash, rec.CorrelationID = c.Operation, c.StampHash, c.CorrelationID
	c.State, c.Decision = rec.Decision, &rec
	val, err := StoredJSON(c)
	if err != nil {
		return store.Plan{}, err
	}
	a, err := auditOp(AuditEntry{Time: rec.Time, Event: string(rec.Decision), ConfirmationID: c.ID,
		CorrelationID: c.CorrelationID, Actor: rec.Decider, Persona: c.Operation.Persona, Operation: c.Operation.String(),
		Boundary: c.Boundary, Authority: c.Authority, StampHash: c.StampHash, Remember: remember, Reason: rec.Reason,
		Via: rec.Via, Requester: c.Requester, AuthorityBinding: c.AuthorityBinding})
	if err != nil {
		return store.Plan{}, err
	}
	ops := []store.Op{store.Put(keyConfirmation(c.ID), val), store.Op{Key: keyUndecided(c.ID), Delete: true}, a}
	if remember != RememberNone {
		op, err := learnedOp(c, rec, remember)
		if err != nil {
			return store.Plan{}, err
		}
		ops = append(ops, op)
	}
	return store.Plan{Conds: []store.Cond{{Key: keyConfirmation(c.ID), ModRev: kv.ModRev}}, Ops: ops}, nil
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
