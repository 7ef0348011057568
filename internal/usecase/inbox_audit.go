package usecase

import (
	"context"
	"fmt"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/confirm/queue"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// The audit events of the human's own acts on their channel (the console's
// inbox and POST /v1/inbox/{id}/...). Each is written in the transaction of
// the act it records; an act that changes nothing (a repeated ack, a
// reaction retried under its correlation id) writes none, as a tool call
// that writes nothing writes none.
const (
	AuditInboxReply = "inbox-reply"
	AuditInboxReact = "inbox-react"
	AuditInboxAck   = "inbox-ack"
	AuditInboxTick  = "inbox-tick"
	// AuditInboxAnswer: the human chose an action of a card.
	AuditInboxAnswer = "inbox-answer"
)

// humanAct is one act of the human on an item of their channel, as its
// audit entry records it: never a body, a title or a fence — the item's
// id, the persona's seat and what was done.
type humanAct struct {
	Event string
	Human confirm.Principal
	// Persona is the seat of the item's conversation.
	Persona string
	// Operation names the act and its item ("ack h-7").
	Operation     string
	CorrelationID string
	// Reason is a refused reaction's reason.
	Reason string
}

// joinHumanAudit joins act's audit entry to plan (a non-empty plan: the
// act changed something), so the act and its entry commit together.
func (u *Cases) joinHumanAudit(ctx context.Context, plan *store.Plan, act humanAct) error {
	if plan.Empty() {
		return nil
	}
	op, err := queue.AuditOp(confirm.AuditEntry{Time: u.now().UTC(), Event: act.Event, CorrelationID: act.CorrelationID,
		Actor: act.Human, Persona: act.Persona, Operation: act.Operation, Reason: act.Reason, Via: confirm.ViaOf(ctx)})
	if err != nil {
		return fmt.Errorf("audit %s: %w", act.Event, err)
	}
	plan.Ops = append(plan.Ops, op)
	return nil
}
