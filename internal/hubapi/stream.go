package hubapi

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/events"
)

// EpochHeader carries the stream's epoch on every stream answer, so a
// client knows which hub run its sequence numbers belong to.
const EpochHeader = "Virgo-Epoch"

// The kinds of change on the stream: the service layer's event kinds
// (events.EventKind; its event table says each one's payload).
const (
	KindPersona      = events.EventPersona
	KindPresence     = events.EventPresence
	KindConfirmation = events.EventConfirmation
	KindTask         = events.EventTask
	KindPrompt       = events.EventPrompt
	KindAudit        = events.EventAudit
	KindReaction     = events.EventReaction
	KindMessage      = events.EventMessage
	KindChannelItem  = events.EventChannelItem
	KindTyping       = events.EventTyping
	KindRun          = events.EventRun
	KindRunEvent     = events.EventRunEvent
	KindArtifact     = events.EventArtifact
	KindDecision     = events.EventDecision
	// KindResync: not a change, a notice that changes were lost (the hub
	// restarted, its store history was compacted, or the reader fell
	// behind the ring): fetch a snapshot, then carry on from the notice's
	// Seq.
	KindResync = events.EventResync
)

// ErrResync: the requested sequence is no longer kept, or belongs to an
// earlier hub run; the reader must fetch a snapshot and resume from the head.
var ErrResync = errors.New("resync: the changes after that sequence are no longer kept; fetch a snapshot and resume from the head")

// Change is one change event as the stream delivers it. Seq numbers are
// consecutive within one Epoch (one hub run).
type Change struct {
	Seq   uint64 `json:"seq"`
	Epoch string `json:"epoch"`
	// Kind is the event's kind: "persona", "presence", "confirmation", ...
	Kind events.EventKind `json:"kind"`
	// ID names what changed within its kind (a generation id, a
	// confirmation id, ...).
	ID string `json:"id,omitempty"`
	// Rev is the store revision of a change from the store.
	Rev    int64     `json:"rev,omitempty"`
	Delete bool      `json:"delete,omitempty"`
	Time   time.Time `json:"time"`
	// Data is the payload as JSON, of the kind's type (Payload reads it);
	// absent for a removal and a resync.
	Data json.RawMessage `json:"data,omitempty"`
}

// NewChange is the stream's form of event ev, at t.
func NewChange(ev events.Event, t time.Time) Change {
	return Change{Kind: ev.Kind, ID: ev.ID, Rev: ev.Rev, Delete: ev.Removed, Time: t, Data: ev.Data}
}

// Payload is the change's payload, of its kind's type: a registry.Persona,
// a Presence, a confirm.Confirmation, ... (events.DecodePayload); nil for
// a removal or a resync.
func (c Change) Payload() (any, error) {
	return events.DecodePayload(c.Kind, c.Data)
}
