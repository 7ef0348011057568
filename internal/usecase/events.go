package usecase

import (
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/virgo-hub/virgo-tui/internal/channel/mailbox"
	"github.com/virgo-hub/virgo-tui/internal/confirm/queue"
	"github.com/virgo-hub/virgo-tui/internal/coord/switchboard"
	"github.com/virgo-hub/virgo-tui/internal/decisions/ledger"
	"github.com/virgo-hub/virgo-tui/internal/events"
	"github.com/virgo-hub/virgo-tui/internal/registry/roster"
	"github.com/virgo-hub/virgo-tui/internal/runs/journal"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/tasks/board"
)

// eventRecord is one row of the table of the store records change events
// are made of: a kind and the prefix its owning package exports. The
// events a front end publishes itself (presence, resync) have none.
type eventRecord struct {
	kind   events.EventKind
	prefix string
}

// eventRecords is the one table of the store records that are change
// events. A store record under no row's prefix — an index, a token hash, a
// fence, an idempotency record — is not an event, so nothing internal
// reaches a subscriber. The kinds and their payloads are package events'.
var eventRecords = []eventRecord{
	{events.EventPersona, roster.PrefixPersona},
	{events.EventConfirmation, queue.PrefixConfirmation},
	{events.EventTask, board.PrefixRecord},
	{events.EventPrompt, queue.PrefixPromptsPersona},
	{events.EventPrompt, queue.PrefixPromptsClass},
	{events.EventAudit, queue.PrefixAudit},
	{events.EventReaction, queue.PrefixReactions},
	{events.EventMessage, switchboard.PrefixInbox},
	{events.EventChannelItem, mailbox.PrefixItem},
	{events.EventTyping, mailbox.PrefixTyping},
	{events.EventRun, journal.PrefixRun},
	{events.EventRunEvent, journal.PrefixEvent},
	{events.EventArtifact, journal.PrefixArtifact},
	{events.EventDecision, ledger.PrefixItem},
}

// EventOf is the change event a committed store write makes, and false for
// a write that is no event (see eventKinds). A record that is not JSON is
// an error naming it (the store holds what the use cases wrote, so this is
// damage, not input).
func EventOf(ev store.Event) (events.Event, bool, error) {
	for _, k := range eventRecords {
		id, ok := strings.CutPrefix(ev.Key, k.prefix)
		if !ok {
			continue
		}
		out := events.Event{Kind: k.kind, ID: id, Rev: ev.Rev, Removed: ev.Delete}
		if ev.Delete {
			return out, true, nil
		}
		if !jsontext.Value(ev.Value).IsValid() {
			return out, true, fmt.Errorf("%s event %s at revision %d: %w: not JSON", k.kind, id, ev.Rev, store.ErrCorrupt)
		}
		out.Data = ev.Value
		return out, true, nil
	}
	return events.Event{}, false, nil
}
