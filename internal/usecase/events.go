package usecase

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/channel"
	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/confirm/queue"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/decisions"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/registry/roster"
	"github.com/virgo-hub/virgo-tui/internal/runs"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/tasks"
)

// EventKind names one kind of change event.
type EventKind string

// The kinds of change event, one per row of the event table.
const (
	// EventPersona: a persona generation's record; the payload is a
	// registry.Persona.
	EventPersona EventKind = "persona"
	// EventPresence: a generation's presence; the payload is a Presence.
	EventPresence EventKind = "presence"
	// EventConfirmation: a confirmation queued, joined or decided; the
	// payload is a confirm.Confirmation.
	EventConfirmation EventKind = "confirmation"
	// EventTask: a task record assigned to a persona generation (a
	// deputy's scope is its tasks), reported on or removed; the payload is
	// a tasks.Task.
	EventTask EventKind = "task"
	// EventPrompt: a learned choice (removed: dropped or carried
	// forward); the payload is a confirm.Choice.
	EventPrompt EventKind = "prompt"
	// EventAudit: an audit entry; the payload is a confirm.AuditEntry.
	EventAudit EventKind = "audit"
	// EventReaction: a human-surface reaction's outcome; the payload is a
	// confirm.Outcome.
	EventReaction EventKind = "reaction"
	// EventMessage: a coordination message admitted to a seat's inbox
	// (removed: acked out of it); the payload is a coord.Message.
	EventMessage EventKind = "message"
	// EventChannelItem: an item of a human's channel written or changed
	// (sent, replied, acked, reacted to, ticked); the payload is a
	// channel.Item.
	EventChannelItem EventKind = "channel_item"
	// EventTyping: a persona's typing indicator in its human's channel
	// (removed: cleared); the payload is a channel.Typing.
	EventTyping EventKind = "typing"
	// EventRun: a run created, moved or changed by an event or an
	// artifact; the payload is a runs.Run.
	EventRun EventKind = "run"
	// EventRunEvent: an event appended to a run's log (its id names the
	// run: "<run>/<seq>"); the payload is a runs.Event.
	EventRunEvent EventKind = "run_event"
	// EventArtifact: an artifact recorded on a run; the payload is a
	// runs.Artifact.
	EventArtifact EventKind = "artifact"
	// EventDecision: a decision raised or resolved; the payload is a
	// decisions.Decision.
	EventDecision EventKind = "decision"
	// EventResync: not a change but a notice that changes were lost (the
	// hub restarted, its store history was compacted, or a reader fell
	// behind): fetch a snapshot, then carry on. No payload.
	EventResync EventKind = "resync"
)

// Event is one change of the installation as the service layer defines
// it: what changed (Kind, and ID within the kind) and the thing as it is
// now, as JSON of the kind's payload type (Data; Payload reads it; nil
// when it was removed). A store record an event is made of is its
// payload's JSON, so the event carries it as it is, decoded only by those
// who read it.
type Event struct {
	Kind EventKind
	// ID names what changed within its kind: a generation id, a
	// confirmation id, a task id, ...
	ID string
	// Rev is the store revision that made a change from the store; 0 for
	// presence and resync.
	Rev     int64
	Removed bool
	Data    json.RawMessage
}

// NewEvent is an event a front end publishes itself (presence): payload,
// of kind's payload type, as JSON.
func NewEvent(kind EventKind, id string, payload any) (Event, error) {
	b, err := json.Marshal(payload)
	if err != nil {
		return Event{}, fmt.Errorf("%s event %s: %w", kind, id, err)
	}
	return Event{Kind: kind, ID: id, Data: b}, nil
}

// Payload is the event's payload, of its kind's type (see DecodePayload).
func (e Event) Payload() (any, error) { return DecodePayload(e.Kind, e.Data) }

// eventKind is one row of the event table: a kind, the store records its
// events are made of (named by the prefix their owning package exports;
// none for the events a front end publishes itself), and how its payload
// is read from JSON.
type eventKind struct {
	kind    EventKind
	prefix  string
	payload func(data []byte) (any, error)
	// private marks a human's own records (its channel): the event's id
	// starts with that human's principal and a slash, and no other
	// subscriber sees what it holds (VisibleTo).
	private bool
}

// eventKinds is the one table of change events. Adding a kind is adding a
// row (and its constant). A store record under no row's prefix — an
// index, a token hash, a fence, an idempotency record — is not an event,
// so nothing internal reaches a subscriber.
var eventKinds = []eventKind{
	{EventPersona, roster.PrefixPersona, payloadOf[registry.Persona], false},
	{EventPresence, "", payloadOf[Presence], false},
	{EventConfirmation, queue.PrefixConfirmation, payloadOf[confirm.Confirmation], false},
	{EventTask, tasks.PrefixRecord, payloadOf[tasks.Task], false},
	{EventPrompt, queue.PrefixPromptsPersona, payloadOf[confirm.Choice], false},
	{EventPrompt, queue.PrefixPromptsClass, payloadOf[confirm.Choice], false},
	{EventAudit, queue.PrefixAudit, payloadOf[confirm.AuditEntry], false},
	{EventReaction, queue.PrefixReactions, payloadOf[confirm.Outcome], false},
	{EventMessage, coord.PrefixInbox, payloadOf[coord.Message], false},
	{EventChannelItem, channel.PrefixItem, payloadOf[channel.Item], true},
	{EventTyping, channel.PrefixTyping, payloadOf[channel.Typing], true},
	{EventRun, runs.PrefixRun, payloadOf[runs.Run], false},
	{EventRunEvent, runs.PrefixEvent, payloadOf[runs.Event], false},
	{EventArtifact, runs.PrefixArtifact, payloadOf[runs.Artifact], false},
	{EventDecision, decisions.PrefixItem, payloadOf[decisions.Decision], false},
	{EventResync, "", nil, false},
}

// wireForms are the kinds whose stored record is not what an event carries:
// a confirmation's detail may be stored compressed (confirm.WireJSON).
var wireForms = map[EventKind]func(record []byte) ([]byte, error){
	EventConfirmation: confirm.WireJSON,
}

// payloadOf reads a payload of type T.
func payloadOf[T any](data []byte) (any, error) {
	var v T
	err := json.Unmarshal(data, &v)
	return v, err
}

// EventOf is the change event a committed store write makes, and false for
// a write that is no event (see eventKinds). A record that is not JSON is
// an error naming it (the store holds what the use cases wrote, so this is
// damage, not input).
func EventOf(ev store.Event) (Event, bool, error) {
	for _, k := range eventKinds {
		id, ok := strings.CutPrefix(ev.Key, k.prefix)
		if k.prefix == "" || !ok {
			continue
		}
		out := Event{Kind: k.kind, ID: id, Rev: ev.Rev, Removed: ev.Delete}
		if ev.Delete {
			return out, true, nil
		}
		if !json.Valid(ev.Value) {
			return out, true, fmt.Errorf("%s event %s at revision %d: %w: not JSON", k.kind, id, ev.Rev, store.ErrCorrupt)
		}
		out.Data = ev.Value
		if wire := wireForms[k.kind]; wire != nil {
			data, err := wire(ev.Value)
			if err != nil {
				return out, true, fmt.Errorf("%s event %s at revision %d: %w", k.kind, id, ev.Rev, err)
			}
			out.Data = data
		}
		return out, true, nil
	}
	return Event{}, false, nil
}

// VisibleTo reports whether principal may see what an event of kind with
// id holds: every kind is any operator's to see but a human's own channel
// (its items and typing indicators), which only that human sees.
func VisibleTo(kind EventKind, id, principal string) bool {
	for _, k := range eventKinds {
		if k.kind == kind && k.private {
			return strings.HasPrefix(id, principal+"/")
		}
	}
	return true
}

// ErrUnknownEvent: a change of a kind the event table does not have (a
// newer hub's, to an older client).
var ErrUnknownEvent = errors.New("unknown kind of change event")

// DecodePayload reads the JSON payload of an event of kind: a value of the
// kind's payload type (registry.Persona, Presence, confirm.Confirmation,
// ...), nil for a kind without one or an empty data.
func DecodePayload(kind EventKind, data []byte) (any, error) {
	for _, k := range eventKinds {
		if k.kind != kind {
			continue
		}
		if k.payload == nil || len(data) == 0 {
			return nil, nil
		}
		return k.payload(data)
	}
	return nil, fmt.Errorf("%q: %w", kind, ErrUnknownEvent)
}
