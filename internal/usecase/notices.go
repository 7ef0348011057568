package usecase

import (
	"context"
	"errors"
	"fmt"

	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// Work arrives as messages: the change of a record that someone else must
// act on (a task assigned, reported, reassigned or cancelled, a decision
// raised or resolved, the human's answer) delivers a coordination message
// to that one's seat, naming the record (coord.About), in the record's own
// transaction. An agent learns of work from its inbox (and its MCP
// server's notification of it), never by polling the records.

// notice is the coordination message that tells a seat of a record's
// change. Its subject and body are short and point at the record: the
// record carries the content, read with its own tool.
type notice struct {
	To      string
	About   coord.About
	Subject string
	Body    string
}

// envelope is the delivery envelope of a message p's runtime instance
// (presenting fence) sends: the registry's record of p and the instance's
// provenance (when it claimed its fence).
func (u *Cases) envelope(ctx context.Context, p registry.Persona, fence coord.Fence) (coord.Sender, error) {
	s := sender(p)
	at, err := u.coord.ClaimedAt(ctx, p.ID, fence)
	if err != nil {
		return coord.Sender{}, fmt.Errorf("the envelope of %s: %w", p.Address, err)
	}
	s.InstanceSince = at
	return s, nil
}

// planNotice plans n delivered to the inbox of the seat n.To, from from.
// A seat with no active holder is told nothing (retirement stops new
// delivery): the record stands, and the seat's next holder finds it in its
// lists. A sender telling itself is told nothing either. Any other refusal
// (a full inbox) refuses the record's change with it, so nothing is
// recorded that its party was not told of.
func (u *Cases) planNotice(ctx context.Context, from coord.Sender, n notice) (store.Plan, error) {
	holder, _, err := u.reg.ActiveHolder(ctx, n.To)
	switch {
	case errors.Is(err, registry.ErrNoActiveHolder) || errors.Is(err, registry.ErrNotFound):
		return store.Plan{}, nil
	case err != nil:
		return store.Plan{}, err
	case holder.ID == from.ID:
		return store.Plan{}, nil
	}
	about := n.About
	_, plan, err := u.coord.PlanSend(ctx, coord.Message{To: holder.Address, From: from, Subject: n.Subject, Body: n.Body,
		About: &about})
	if err != nil {
		return store.Plan{}, fmt.Errorf("tell %s of %s %s: %w", holder.Address, about.Kind, about.ID, err)
	}
	return plan, nil
}

// joinNotice joins to plan the notice n, from the caller of c.
func (u *Cases) joinNotice(ctx context.Context, c Call, plan *store.Plan, n notice) error {
	from, err := u.envelope(ctx, c.Persona, c.Fence)
	if err != nil {
		return err
	}
	tell, err := u.planNotice(ctx, from, n)
	if err != nil {
		return err
	}
	plan.Join(tell)
	return nil
}
