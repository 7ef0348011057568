package hub

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/channel"
	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/decisions"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/operatorkeys"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/runs"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/tasks"
)

// watchStore publishes every committed store write (but presence, which the
// tracker publishes itself) and keeps presence and tokens in line with
// persona records. A watch that ends while ctx lives is resumed from the
// last revision; if that history is gone, readers are told to resync.
func (h *Hub) watchStore(ctx context.Context) {
	after := h.startRev
	for ctx.Err() == nil {
		events, err := h.st.Watch(ctx, "", after)
		if errors.Is(err, store.ErrCompacted) {
			h.log.Warn("store history compacted under the hub's watch; readers must resync", "after", after)
			after, _ = h.st.Rev(ctx)
			h.stream.Publish(hubapi.Change{Kind: hubapi.KindResync, Time: time.Now().UTC()})
			continue
		}
		if err != nil {
			if ctx.Err() == nil {
				h.log.Error("store watch failed", "err", err)
			}
			return
		}
		for ev := range events {
			h.apply(ev)
			after = ev.Rev
			if ev.Last {
				// A use case is one transaction: Settle returns only once
				// all of it is applied, never half.
				h.markApplied(ev.Rev)
			}
		}
	}
}

// streamKinds names the kind of change of each store prefix, first match
// wins; "" keeps a prefix off the stream (internal indexes, and presence,
// which the tracker publishes coalesced).
var streamKinds = []struct{ prefix, kind string }{
	{presencePrefix, ""},
	{TokenHashPrefix, ""},
	{operatorkeys.Prefix, ""},
	{"persona/", hubapi.KindPersona},
	{"seat/", hubapi.KindSeat},
	{"name/", ""},
	{confirm.PrefixConfirmation, hubapi.KindConfirmation},
	{tasks.PrefixRecord, hubapi.KindAssignment},
	{"tasks/", ""}, // the tasks' indexes
	{"confirm/", ""},
	{"prompts/", hubapi.KindPrompt},
	{confirm.PrefixAudit, hubapi.KindAudit},
	{confirm.PrefixReactions, hubapi.KindReaction},
	{coord.PrefixInbox, hubapi.KindMessage},
	// Fences are their generation's own (never exported nor shown); the
	// seat books are an internal count.
	{coord.PrefixFence, ""},
	{coord.PrefixSeat, ""},
	{channel.PrefixItem, hubapi.KindChannelItem},
	{channel.PrefixTyping, hubapi.KindTyping},
	// A file's bytes are fetched on demand; the book is a count.
	{channel.PrefixFile, ""},
	{channel.PrefixBook, ""},
	{runs.PrefixRun, hubapi.KindRun},
	{runs.PrefixEvent, hubapi.KindRunEvent},
	{runs.PrefixArtifact, hubapi.KindArtifact},
	{runs.Prefix, ""}, // a task's run count and its runs' index
	{decisions.PrefixItem, hubapi.KindDecision},
	{decisions.Prefix, ""}, // the counts and the index by scope and project
}

func streamKind(key string) string {
	for _, k := range streamKinds {
		if strings.HasPrefix(key, k.prefix) {
			return k.kind
		}
	}
	kind, _, _ := strings.Cut(key, "/")
	return kind
}

// apply publishes one store event and keeps presence, tokens and waiting
// counts in line with persona and confirmation records.
func (h *Hub) apply(ev store.Event) {
	kind := streamKind(ev.Key)
	if kind == "" {
		return
	}
	c := hubapi.Change{Kind: kind, Key: ev.Key, Rev: ev.Rev, Delete: ev.Delete, Time: time.Now().UTC()}
	if json.Valid(ev.Value) {
		c.Data = ev.Value
	}
	switch {
	case ev.Delete:
	case kind == hubapi.KindPersona:
		var p registry.Persona
		if err := json.Unmarshal(ev.Value, &p); err == nil {
			if err := h.trackPersona(p, true); err != nil {
				h.log.Error("persona token", "persona", p.Address, "err", err)
			}
		}
	case kind == hubapi.KindMessage:
		if m, ok := coord.DecodeInboxEvent(ev); ok {
			h.mail.deliver(m)
		}
	case kind == hubapi.KindConfirmation:
		var cf confirm.Confirmation
		if err := json.Unmarshal(ev.Value, &cf); err == nil {
			h.countWaiting(&cf)
		}
	}
	h.stream.Publish(c)
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
