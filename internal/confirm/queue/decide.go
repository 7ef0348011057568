package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// Decided is a decision read and planned but not committed: the
// confirmation as it will be stored and the guarded writes of its decision
// record, audit entry and any learned choice.
type Decided struct {
	Confirmation *confirm.Confirmation
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
		return fmt.Errorf("confirmation %s: %w", d.Confirmation.ID, confirm.ErrExpired)
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
func (q *Queue) PlanDecide(ctx context.Context, decider confirm.Principal, id string, approve bool, remember confirm.Remember, reason string) (Decided, error) {
	if !approve && reason == "" {
		return Decided{}, fmt.Errorf("deny %s: %w", id, confirm.ErrNoReason)
	}
	if remember != confirm.RememberNone && remember != confirm.RememberPersona && remember != confirm.RememberClass {
		return Decided{}, fmt.Errorf("remember %q: want persona or class: %w", remember, confirm.ErrNotRememberable)
	}
	c, kv, err := q.load(ctx, id)
	if err != nil {
		return Decided{}, err
	}
	now := q.now().UTC()
	if c.State == confirm.StateWithdrawn {
		return Decided{Confirmation: c}, fmt.Errorf("confirmation %s is %s: %w", id, c.State, confirm.ErrWithdrawn)
	}
	if c.State.Terminal() {
		return Decided{Confirmation: c}, fmt.Errorf("confirmation %s is %s: %w", id, c.State, confirm.ErrAlreadyDecided)
	}
	if c.StateAt(now) == confirm.StateExpired {
		plan, err := q.planDecision(c, kv, confirm.DecisionRecord{Decision: confirm.StateExpired, Decider: confirm.SystemPrincipal("expiry"),
			Time: now, Reason: "expired at " + c.ExpiresAt.Format(time.RFC3339)}, confirm.RememberNone)
		return Decided{Confirmation: c, Plan: plan, Expired: true}, err
	}
	if err := confirm.MayDecide(decider, c, remember); err != nil {
		return Decided{Confirmation: c}, err
	}
	rec := confirm.DecisionRecord{Decision: confirm.StateDenied, Decider: decider, Time: now, Remember: remember, Reason: reason, Via: confirm.ViaOf(ctx)}
	if approve {
		rec.Decision = confirm.StateApproved
	}
	plan, err := q.planDecision(c, kv, rec, remember)
	return Decided{Confirmation: c, Plan: plan}, err
}

// planDecision plans the terminal state, the audit entry and any learned
// choice, conditioned on the confirmation being unchanged; it sets c to the
// state it plans.
func (q *Queue) planDecision(c *confirm.Confirmation, kv store.KV, rec confirm.DecisionRecord, remember confirm.Remember) (store.Plan, error) {
	rec.Requester, rec.Authority, rec.AuthorityBinding = c.Requester, c.Authority, c.AuthorityBinding
	rec.Operation, rec.StampHash, rec.CorrelationID = c.Operation, c.StampHash, c.CorrelationID
	c.State, c.Decision = rec.Decision, &rec
	val, err := json.Marshal(c)
	if err != nil {
		return store.Plan{}, err
	}
	a, err := auditOp(confirm.AuditEntry{Time: rec.Time, Event: string(rec.Decision), ConfirmationID: c.ID,
		CorrelationID: c.CorrelationID, Actor: rec.Decider, Persona: c.Operation.Persona, Operation: c.Operation.String(),
		Boundary: c.Boundary, Authority: c.Authority, StampHash: c.StampHash, Remember: remember, Reason: rec.Reason,
		Via: rec.Via, Requester: c.Requester, AuthorityBinding: c.AuthorityBinding})
	if err != nil {
		return store.Plan{}, err
	}
	ops := []store.Op{store.Put(keyConfirmation(c.ID), val), store.Op{Key: keyUndecided(c.ID), Delete: true}, a}
	if remember != confirm.RememberNone {
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
func learnedOp(c *confirm.Confirmation, rec confirm.DecisionRecord, where confirm.Remember) (store.Op, error) {
	rule, err := c.RememberRuleIn(where)
	if err != nil {
		return store.Op{}, err
	}
	ch := confirm.Choice{
		Key: rule.Key, Verdict: confirm.Deny, Boundary: rule.Boundary, Persona: rule.Persona, Profile: rule.Profile, Where: rule.Where,
		Decider: rec.Decider, ConfirmationID: c.ID, CreatedAt: rec.Time, Reason: rec.Reason,
	}
	if rec.Decision == confirm.StateApproved {
		ch.Verdict = confirm.Allow
	}
	val, err := json.Marshal(ch)
	if err != nil {
		return store.Op{}, err
	}
	return store.Put(choiceKey(ch), val), nil
}
