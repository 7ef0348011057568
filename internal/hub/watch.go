package hub

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/coord/switchboard"
	"github.com/virgo-hub/virgo-tui/internal/events"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/operators/roll"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
)

// Waits between attempts to watch a store that is unavailable: doubling
// from the first to the largest, so a hub notices a returned etcd quorum
// within two seconds without busying a cluster that is down.
const (
	firstWatchWait = 100 * time.Millisecond
	maxWatchWait   = 2 * time.Second
)

// watchStore publishes every committed store write (but presence, which the
// tracker publishes itself; on a store shared by several hubs the other
// hubs' presence records feed the tracker, followPresence) and keeps presence and tokens in line with
// persona records. A watch that ends while ctx lives is resumed from the
// last revision; if that history is gone, readers are told to resync. A
// store that is unavailable (an etcd cluster without a quorum) is watched
// again until it answers: a handler's Settle waits for the watch, so a
// watch given up would hang every write after the outage.
func (h *Hub) watchStore(ctx context.Context) {
	after := h.startRev
	wait := firstWatchWait
	for ctx.Err() == nil {
		changes, err := h.st.Watch(ctx, "", after)
		if errors.Is(err, store.ErrCompacted) {
			h.log.Warn("store history compacted under the hub's watch; readers must resync", "after", after)
			after, _ = h.st.Rev(ctx)
			h.publish(events.Event{Kind: events.EventResync})
			continue
		}
		if errors.Is(err, store.ErrUnavailable) {
			h.log.Warn("store unavailable; its watch is tried again", "after", after, "in", wait, "err", err)
			select {
			case <-ctx.Done():
			case <-time.After(wait):
			}
			wait = min(2*wait, maxWatchWait)
			continue
		}
		if err != nil {
			if ctx.Err() == nil {
				h.log.Error("store watch failed", "err", err)
			}
			return
		}
		wait = firstWatchWait
		var wake []string // the callers the transaction may revoke
		for ev := range changes {
			if key, revokes := h.apply(ev); revokes {
				wake = append(wake, key)
			}
			after = ev.Rev
			if ev.Last {
				// Each stream concerned wakes once a transaction is
				// applied whole.
				for _, key := range wake {
					h.woken.fire(key)
				}
				wake = wake[:0]
				// A use case is one transaction: Settle returns only once
				// all of it is applied, never half.
				h.markApplied(ev.Rev)
			}
		}
		for _, key := range wake {
			h.woken.fire(key) // the watch ended inside a transaction
		}
	}
}

// apply publishes the change event of one store write (usecase.EventOf:
// a write that is no event, such as an index, a token hash or a fence, is
// not published) and keeps presence, tokens, inbox streams and waiting
// counts in line with the records it carries. It reports whether the
// write can revoke an open stream's caller — a generation's token hash,
// record or instance fence, an operator's enrolment — and whose streams
// (wakeKey) watchStore must then wake (untilRevoked).
func (h *Hub) apply(sev store.Event) (wake string, revokes bool) {
	// Token hashes and enrolments make no event: a hash is never published.
	// Presence is the tracker's to publish: another hub's feeds it.
	switch {
	case strings.HasPrefix(sev.Key, TokenHashPrefix):
		h.followTokenHash(sev)
		return strings.TrimPrefix(sev.Key, TokenHashPrefix), true
	case strings.HasPrefix(sev.Key, roll.Prefix):
		h.tokens.followEnrolment(sev)
		return humanStreams, true
	case strings.HasPrefix(sev.Key, switchboard.PrefixFence):
		// A claim fences out the older instances' streams.
		return strings.TrimPrefix(sev.Key, switchboard.PrefixFence), true
	case strings.HasPrefix(sev.Key, presencePrefix):
		if h.share != nil {
			h.followPresence(strings.TrimPrefix(sev.Key, presencePrefix), sev)
		}
		return "", false
	}
	ev, ok, err := usecase.EventOf(sev)
	if err != nil {
		h.log.Error("a stored record cannot be read as its change event; it is not published", "err", err)
		return "", false
	}
	if !ok {
		return "", false
	}
	switch ev.Kind {
	case events.EventPersona, events.EventMessage, events.EventConfirmation:
		h.follow(ev)
	}
	h.publish(ev)
	return ev.ID, ev.Kind == events.EventPersona
}

// follow keeps presence, tokens, inbox streams and waiting counts in line
// with the record an event carries.
func (h *Hub) follow(ev events.Event) {
	if ev.Kind == events.EventConfirmation {
		h.followConfirmation(ev)
		return
	}
	p, err := ev.Payload()
	if err != nil {
		h.log.Error("a change event's record cannot be read", "kind", ev.Kind, "id", ev.ID, "err", err)
		return
	}
	switch p := p.(type) {
	case registry.Persona:
		if err := h.trackPersona(p, true); err != nil {
			h.log.Error("persona token", "persona", p.Address, "err", err)
		}
	case coord.Message:
		h.mail.deliver(p)
	}
}

// followConfirmation keeps the waiting counts in line with a confirmation
// event, and wakes the requests waiting for its decision.
func (h *Hub) followConfirmation(ev events.Event) {
	if len(ev.Data) == 0 {
		return // a removal carries no record to count
	}
	var f standing
	if err := strictjson.DecodeOpen(ev.Data, &f); err != nil {
		h.log.Error("a change event's record cannot be read", "kind", ev.Kind, "id", ev.ID, "err", err)
		return
	}
	h.countWaiting(&confirm.Confirmation{ID: f.ID, PersonaID: f.PersonaID, Authority: f.Authority, State: f.State})
	if f.State.Terminal() {
		h.decided.decide(f.ID)
	}
}

// standing is where a confirmation stands: the fields of its record (a
// stored one or an answer's, whichever the event carries) by which the hub
// counts the pending confirmations of each persona and each authority, and
// wakes the requests waiting for a decision. The rest of the record is
// skipped, not decoded.
type standing struct {
	ID        string            `json:"id"`
	PersonaID string            `json:"persona_id"`
	Authority confirm.Principal `json:"authority"`
	State     confirm.State     `json:"state"`
}

// publish puts change events on the stream.
func (h *Hub) publish(evs ...events.Event) {
	now := time.Now().UTC()
	cs := make([]hubapi.Change, len(evs))
	for i, ev := range evs {
		cs[i] = hubapi.NewChange(ev, now)
	}
	h.stream.Publish(cs...)
}

// countWaiting keeps, per persona generation, the number of its pending
// confirmations (shown as "waiting" in presence), and per authority the
// number routed to it: the counts behind the queue's pending limits.
func (h *Hub) countWaiting(c *confirm.Confirmation) {
	h.waitMu.Lock()
	defer h.waitMu.Unlock()
	_, had := h.waitingOn[c.ID]
	switch pending := c.State == confirm.StatePending; {
	case pending && !had:
		h.waitingOn[c.ID] = c.PersonaID
		h.waitFor[c.ID] = c.Authority.String()
		h.waitCount[c.PersonaID]++
		h.authCount[c.Authority.String()]++
	case !pending && had:
		delete(h.waitingOn, c.ID)
		h.authCount[h.waitFor[c.ID]]--
		delete(h.waitFor, c.ID)
		h.waitCount[c.PersonaID]--
	default:
		return
	}
	if c.PersonaID != "" {
		h.presence.SetWaiting(c.PersonaID, h.waitCount[c.PersonaID])
	}
}

// pendingCounts answers the queue's PendingCounter from the counts
// countWaiting keeps.
type pendingCounts struct{ h *Hub }

// PendingOf is how many pending confirmations a generation asked for.
func (p pendingCounts) PendingOf(personaID string) int {
	p.h.waitMu.Lock()
	defer p.h.waitMu.Unlock()
	return p.h.waitCount[personaID]
}

// PendingFor is how many pending confirmations are routed to authority.
func (p pendingCounts) PendingFor(authority confirm.Principal) int {
	p.h.waitMu.Lock()
	defer p.h.waitMu.Unlock()
	return p.h.authCount[authority.String()]
}

func (h *Hub) markApplied(rev int64) {
	h.appliedMu.Lock()
	if rev > h.applied {
		h.applied = rev
		close(h.appliedCh)
		h.appliedCh = make(chan struct{})
	}
	h.appliedMu.Unlock()
}

// endStreams ends every stream response; subscribers reconnect to the next hub.
func (h *Hub) endStreams() { h.stopOnce.Do(func() { close(h.streamsDone) }) }

// Settle waits until every store write committed so far is on the stream
// (and reflected in presence and tokens), so a caller that wrote something
// and then reads the stream sees its own write.
func (h *Hub) Settle(ctx context.Context) error {
	rev, err := h.st.Rev(ctx)
	if err != nil {
		return err
	}
	for {
		h.appliedMu.Lock()
		done, ch := h.applied >= rev, h.appliedCh
		h.appliedMu.Unlock()
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		}
	}
}
