package usecase

import (
	"context"
	"fmt"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// The owning lead decides the deputy-scope confirmations routed to it as an
// agent ("a deputy-scope confirmation goes to the owning lead"), through
// the rules that bind every decider (confirm.Queue.PlanDecide, the console's
// Decide too): never its own request or operation, never a global boundary,
// only what is routed to it. Arming does not apply to a model; the bound
// operation is in the list's answer in full, so what is decided is what
// was read.

// Routed is list_confirmations_v1's answer: the pending confirmations
// routed to the caller, oldest first, and whether more wait than were
// listed.
type Routed struct {
	Items []*confirm.Confirmation `json:"items"`
	More  bool                    `json:"more"`
}

// listConfirmations is list_confirmations_v1: the pending confirmations
// whose routed authority is the caller, at most limit of them.
func listConfirmations(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	limit, _ := c.Args.Int("limit")
	if limit == 0 {
		limit = paging.DefaultLimit
	}
	pending, err := u.queue.List(ctx, false)
	if err != nil {
		return nil, store.Plan{}, err
	}
	me := confirm.PersonaPrincipal(c.Persona.Address)
	out := Routed{Items: []*confirm.Confirmation{}}
	for _, p := range pending {
		if p.Authority != me || p.Unroutable {
			continue
		}
		if len(out.Items) == int(limit) {
			out.More = true
			break
		}
		out.Items = append(out.Items, p)
	}
	return out, store.Plan{}, nil
}

// decideConfirmation is decide_confirmation_v1: the caller's decision on a
// confirmation routed to it, with the reason, recorded (with its audit
// entry) before anything it allows is carried out; the requester's seat is
// told. A deputy-scope confirmation has no lifecycle effect (a lifecycle
// confirmation is at a global boundary, which PlanDecide refuses a model),
// and one found expired is refused (confirm.ErrExpired) and left for the
// expiry sweep to record.
func decideConfirmation(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	approve := c.Args.Str("decision") == "approve"
	d, err := u.queue.PlanDecide(ctx, confirm.PersonaPrincipal(c.Persona.Address), c.Args.Str("confirmation"), approve,
		confirm.RememberNone, c.Args.Str("reason"))
	if err == nil {
		err = d.Err()
	}
	if err != nil {
		return nil, store.Plan{}, err
	}
	plan, conf := d.Plan, d.Confirmation
	if !conf.Requester.IsModel() {
		return conf, plan, nil
	}
	err = u.joinNotice(ctx, c, &plan, notice{To: conf.Requester.Name,
		About:   coord.About{Kind: "confirmation", ID: conf.ID, Event: string(conf.State)},
		Subject: "confirmation " + string(conf.State),
		Body: fmt.Sprintf("%s %s confirmation %s of %s (correlation id %s): %s\nCall the tool again with that correlation_id to carry it out or learn the outcome.",
			c.Persona.Address, conf.State, conf.ID, conf.Operation.Tool, conf.CorrelationID, c.Args.Str("reason"))})
	return conf, plan, err
}

// planRoutedNotice plans telling a persona authority that a confirmation
// was routed to it (a deputy's operation outside its tasks, to the owning
// lead): work that arrives as a message, in the transaction that queues it.
// A human authority is told by its console's queue instead.
func (u *Cases) planRoutedNotice(ctx context.Context, from coord.Sender, conf *confirm.Confirmation) (store.Plan, error) {
	if conf == nil || conf.Unroutable || !conf.Authority.IsModel() {
		return store.Plan{}, nil
	}
	return u.planNotice(ctx, from, notice{To: conf.Authority.Name,
		About:   coord.About{Kind: "confirmation", ID: conf.ID, Event: "requested"},
		Subject: "confirmation requested",
		Body: fmt.Sprintf("%s asks to %s %s (%s): confirmation %s.\nRead it in full with list_confirmations_v1; decide it with decide_confirmation_v1.",
			conf.Operation.Persona, conf.Operation.Tool, conf.Operation.Target, conf.Boundary, conf.ID)})
}
