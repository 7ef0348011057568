package usecase

import (
	"context"
	"errors"
	"fmt"

	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// Instance is a persona generation acting through the hub: the generation
// its token names, and the instance fence its request presented
// (coord.NoFence for none).
type Instance struct {
	Persona registry.Persona
	Fence   coord.Fence
}

// holding returns the condition that p is its seat's active holder, or
// ErrNotHolder.
func (u *Cases) holding(ctx context.Context, p registry.Persona) (store.Cond, error) {
	holder, seat, err := u.reg.ActiveHolder(ctx, p.Address)
	switch {
	case err == nil && holder.ID == p.ID:
		return seat, nil
	case err == nil || errors.Is(err, registry.ErrNoActiveHolder):
		return store.Cond{}, fmt.Errorf("%s (%s, generation %d): %w", p.Address, p.Name, p.Generation, ErrNotHolder)
	}
	return store.Cond{}, err
}

// admitted plans the conditions that in's generation still holds its seat,
// active, and that its fence is the generation's latest: a retirement or a
// newer instance committed first makes the joined plan conflict, and the
// use case decides again (and refuses).
func (u *Cases) admitted(ctx context.Context, in Instance) (store.Plan, error) {
	seat, err := u.holding(ctx, in.Persona)
	if err != nil {
		return store.Plan{}, err
	}
	fence, err := u.coord.Check(ctx, in.Persona.ID, in.Fence)
	if err != nil {
		return store.Plan{}, fmt.Errorf("%s (%s): %w", in.Persona.Address, in.Persona.Name, err)
	}
	return store.Plan{Conds: []store.Cond{seat, fence}}, nil
}

// ClaimFence gives a runtime instance of p's generation the next instance
// fence, fencing out every older instance: from this commit on, their
// acks, writes and beats are refused with coord.ErrFenced. One
// transaction, guarded on p still holding its seat.
func (u *Cases) ClaimFence(ctx context.Context, p registry.Persona) (coord.Fence, error) {
	var f coord.Fence
	err := u.commit(ctx, UseClaimFence, "claim a fence for "+p.Address, func() (store.Plan, error) {
		seat, err := u.holding(ctx, p)
		if err != nil {
			return store.Plan{}, err
		}
		var plan store.Plan
		f, plan, err = u.coord.PlanClaim(ctx, p.ID)
		plan.Conds = append(plan.Conds, seat)
		return plan, err
	})
	return f, err
}

// CheckFence answers whether a request of generation personaID presenting
// fence may act now (nil), or is fenced out (coord.ErrFenced). It is the
// check of what writes nothing to the store, such as a presence beat.
func (u *Cases) CheckFence(ctx context.Context, personaID string, fence coord.Fence) error {
	_, err := u.coord.Check(ctx, personaID, fence)
	return err
}

// planSendMessage plans the send_broker_message executor's writes and
// conditions, guarded on both ends: the sender still holds its seat with
// the latest fence, and the recipient seat still has the active holder it
// was read with (a retirement committed first refuses the send with
// registry.ErrNoActiveHolder; one committed after leaves the message in the
// seat's inbox for its next generation). d.To is a canonical address.
func (u *Cases) planSendMessage(ctx context.Context, from Instance, d coord.Draft) (coord.Message, store.Plan, error) {
	plan, err := u.admitted(ctx, from)
	if err != nil {
		return coord.Message{}, store.Plan{}, err
	}
	_, seat, err := u.reg.ActiveHolder(ctx, d.To)
	if err != nil {
		return coord.Message{}, store.Plan{}, err
	}
	plan.Conds = append(plan.Conds, seat)
	env, err := u.envelope(ctx, from.Persona, from.Fence)
	if err != nil {
		return coord.Message{}, store.Plan{}, err
	}
	m, send, err := u.coord.PlanSend(ctx, coord.Message{To: d.To, Subject: d.Subject, Body: d.Body, ReplyTo: d.ReplyTo,
		From: env})
	if err != nil {
		return coord.Message{}, store.Plan{}, err
	}
	plan.Join(send)
	return m, plan, nil
}

// Inbox is one page of the messages waiting for p's seat, oldest first
// (see switchboard.Book.Inbox): what the seat's earlier generations did not ack
// included. Only the seat's active holder reads it.
func (u *Cases) Inbox(ctx context.Context, p registry.Persona, after string, limit int) (coord.Page, error) {
	if _, err := u.holding(ctx, p); err != nil {
		return coord.Page{}, err
	}
	return u.coord.Inbox(ctx, p.Address, after, limit)
}

// SeatInbox is one page of the messages waiting in the inbox of the seat
// at addr, for an operator's view; it reads no persona's fence.
func (u *Cases) SeatInbox(ctx context.Context, addr, after string, limit int) (coord.Page, error) {
	a, err := registry.ParseAddress(addr)
	if err != nil {
		return coord.Page{}, err
	}
	return u.coord.Inbox(ctx, a.String(), after, limit)
}

// planAckMessage plans the ack_coordination_message executor's writes:
// message id leaves the instance's seat's inbox and is delivered no more.
// Acks are idempotent (a repeat answers Repeat and plans nothing); an
// instance fenced out by a newer one is refused with coord.ErrFenced.
func (u *Cases) planAckMessage(ctx context.Context, in Instance, id string) (coord.Ack, store.Plan, error) {
	plan, err := u.admitted(ctx, in)
	if err != nil {
		return coord.Ack{}, store.Plan{}, err
	}
	out, ack, err := u.coord.PlanAck(ctx, in.Persona.Address, id)
	if err != nil || ack.Empty() {
		return out, store.Plan{}, err
	}
	plan.Join(ack)
	return out, plan, nil
}
