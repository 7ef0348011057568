// Package events is the typed change events of an installation: their
// kinds, the payload type of each, who may see what an event holds, and
// the presence view a front end publishes. It reads no store: the use cases
// make events of committed store writes (usecase.EventOf), the hub streams
// them, and a client reads their payloads here, linking no use case.
package events

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/channel"
	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/decisions"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/runs"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
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

// eventKind is one row of the event table: a kind and how its payload is
// read from JSON (none for resync).
type eventKind struct {
	kind    EventKind
	payload func(data []byte) (any, error)
	// private marks a human's own records (its channel): the event's id
	// starts with that human's principal and a slash, and no other
	// subscriber sees what it holds (VisibleTo).
	private bool
}

// eventKinds is the one table of change events. Adding a kind is adding a
// row (and its constant, and the store records it is made of in
// usecase.EventOf's table).
var eventKinds = []eventKind{
	{EventPersona, payloadOf[registry.Persona], false},
	{EventPresence, payloadOf[Presence], false},
	{EventConfirmation, payloadOf[confirm.Confirmation], false},
	{EventTask, payloadOf[tasks.Task], false},
	{EventPrompt, payloadOf[confirm.Choice], false},
	{EventAudit, payloadOf[confirm.AuditEntry], false},
	{EventReaction, payloadOf[confirm.Outcome], false},
	{EventMessage, payloadOf[coord.Message], false},
	{EventChannelItem, payloadOf[channel.Item], true},
	{EventTyping, payloadOf[channel.Typing], true},
	{EventRun, payloadOf[runs.Run], false},
	{EventRunEvent, payloadOf[runs.Event], false},
	{EventArtifact, payloadOf[runs.Artifact], false},
	{EventDecision, payloadOf[decisions.Decision], false},
	{EventResync, nil, false},
}

// payloadOf reads a payload of type T.
func payloadOf[T any](data []byte) (any, error) {
	var v T
	err := strictjson.DecodeOpen(data, &v)
	return v, err
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
