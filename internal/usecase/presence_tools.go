package usecase

import (
	"context"
	"errors"
	"fmt"

	"github.com/virgo-hub/virgo-tui/internal/events"

	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// PresenceBook is what the presence tools need of the runtimes' presence,
// which the hub keeps in memory (hub.Tracker implements it; the service
// layer cannot reach the hub, so the hub passes its tracker in Config).
type PresenceBook interface {
	// Get returns the presence of one generation (by persona id).
	Get(id string) (events.Presence, bool)
	// After returns at most limit tracked generations whose address sorts
	// after after and that keep accepts, ordered by address then
	// generation, and whether more follow.
	After(after string, limit int, keep func(events.Presence) bool) ([]events.Presence, bool)
	// Report records one beat of generation id with, when given, a new
	// activity and summary, all or nothing; each text is checked against
	// the limits table (length, no control, bidi or invisible character).
	Report(id string, activity, summary *string) error
}

// ErrNoPresence: the use cases were built without the hub's presence
// (Config.Presence), so the presence tools cannot be carried out.
var ErrNoPresence = errors.New("this hub keeps no presence for the presence tools (usecase.Config.Presence is not set)")

// Peer is one persona of the redacted directory, as the presence tools
// answer it to another persona: the registry's attribution (address,
// name, generation, peer id) and what its runtime published (state and
// summary); never its tokens, stamp, bindings or workspace, and never its
// activity, which says what it is working on.
type Peer struct {
	Address    string               `json:"address"`
	Name       string               `json:"name"`
	Generation int                  `json:"generation"`
	PeerID     string               `json:"peer_id"`
	State      events.PresenceState `json:"state"`
	Summary    string               `json:"summary,omitempty"`
}

// peerOf redacts a presence entry to its directory view.
func peerOf(p events.Presence) Peer {
	return Peer{Address: p.Address, Name: p.Name, Generation: p.Generation, PeerID: p.ID, State: p.State, Summary: p.Summary}
}

// presenceBook is the configured presence, or ErrNoPresence.
func (u *Cases) presenceBook() (PresenceBook, error) {
	if u.presence == nil {
		return nil, ErrNoPresence
	}
	return u.presence, nil
}

// listPeers is list_peers: a page of the directory, ordered by address.
// The directory is installation-wide (the directory scope is the one
// read that crosses personas, confirm.Authorize): every generation that
// holds a seat, whatever its runtime's state, except the caller itself;
// retired generations are not peers. The continuation token names the
// last address served.
func listPeers(_ context.Context, u *Cases, c Call) (any, store.Plan, error) {
	book, err := u.presenceBook()
	if err != nil {
		return nil, store.Plan{}, err
	}
	after, err := paging.After("", c.Args.Str("after"))
	if err != nil {
		return nil, store.Plan{}, err
	}
	n, _ := c.Args.Int("limit")
	limit, err := paging.Limit(int(n))
	if err != nil {
		return nil, store.Plan{}, err
	}
	ps, more := book.After(after, limit, func(p events.Presence) bool {
		return p.State != events.PresenceRetired && p.ID != c.Persona.ID
	})
	page := paging.Page[Peer]{Items: make([]Peer, 0, len(ps))}
	for _, p := range ps {
		page.Items = append(page.Items, peerOf(p))
	}
	if more {
		page.Next = paging.Token("", ps[len(ps)-1].Address)
	}
	return page, store.Plan{}, nil
}

// lookupSender is lookup_sender: the directory view of the generation
// that holds the seat at the operation's target address (a message's
// "from" names it), or registry.ErrNoActiveHolder.
func lookupSender(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	book, err := u.presenceBook()
	if err != nil {
		return nil, store.Plan{}, err
	}
	holder, _, err := u.reg.ActiveHolder(ctx, c.Operation.Target.Value)
	if err != nil {
		return nil, store.Plan{}, fmt.Errorf("lookup_sender %s: %w", c.Operation.Target.Value, err)
	}
	pr, ok := book.Get(holder.ID)
	if !ok { // not tracked yet: registered, no runtime seen
		pr = events.Presence{ID: holder.ID, Address: holder.Address, Name: holder.Name, Generation: holder.Generation, State: events.PresenceStanding}
	}
	return peerOf(pr), store.Plan{}, nil
}

// PresenceAck is the answer of set_summary and set_activity: the caller's
// own presence after the report.
type PresenceAck struct {
	State    events.PresenceState `json:"state"`
	Beats    uint64               `json:"beats"`
	Activity string               `json:"activity,omitempty"`
	Summary  string               `json:"summary,omitempty"`
}

// reportPresence records a report of the calling generation, its own seat
// only (the operation's target is the caller, tools table), under the
// rules of a beat: the generation must hold its seat and the instance
// must present the generation's latest fence (coord.ErrFenced
// otherwise). Presence lives in memory, so the call writes nothing to
// the store; the hub flushes it and publishes the change.
func (u *Cases) reportPresence(ctx context.Context, c Call, activity, summary *string) (PresenceAck, error) {
	book, err := u.presenceBook()
	if err != nil {
		return PresenceAck{}, err
	}
	if _, err := u.admitted(ctx, c.instance()); err != nil {
		return PresenceAck{}, err
	}
	if err := book.Report(c.Persona.ID, activity, summary); err != nil {
		return PresenceAck{}, err
	}
	p, _ := book.Get(c.Persona.ID)
	return PresenceAck{State: p.State, Beats: p.Beats, Activity: p.Activity, Summary: p.Summary}, nil
}

// setSummary is set_summary.
func setSummary(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	s := c.Args.Str("summary")
	ack, err := u.reportPresence(ctx, c, nil, &s)
	return ack, store.Plan{}, err
}

// setActivity is set_activity.
func setActivity(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	a := c.Args.Str("activity")
	ack, err := u.reportPresence(ctx, c, &a, nil)
	return ack, store.Plan{}, err
}

// Wake is the answer of reconcile_wake: the caller's presence once the
// wake is recorded, the confirmations it waits on, and the first page of
// its seat's inbox (the messages that waited for it; continue with
// list_coordination_messages).
type Wake struct {
	Presence PresenceAck `json:"presence"`
	Waiting  int         `json:"waiting"`
	Inbox    coord.Page  `json:"inbox"`
}

// reconcileWake is reconcile_wake: a woken runtime is present again (a
// beat, under the fence rules of a beat) and learns what waited for it.
func reconcileWake(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	ack, err := u.reportPresence(ctx, c, nil, nil)
	if err != nil {
		return nil, store.Plan{}, err
	}
	inbox, err := u.coord.Inbox(ctx, c.Persona.Address, "", paging.DefaultLimit)
	if err != nil {
		return nil, store.Plan{}, err
	}
	p, _ := u.presence.Get(c.Persona.ID)
	return Wake{Presence: ack, Waiting: p.Waiting, Inbox: inbox}, store.Plan{}, nil
}
