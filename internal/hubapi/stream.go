package hubapi

import (
	"encoding/json"
	"errors"
	"time"
)

// EpochHeader carries the stream's epoch on every stream answer, so a
// client knows which hub run its sequence numbers belong to.
const EpochHeader = "Virgo-Epoch"

// Kinds of change on the stream.
const (
	// KindPresence: a persona generation's presence changed; Data is a Presence.
	KindPresence = "presence"
	// KindResync: not a change, a notice from Client.Subscribe that changes
	// were lost (the hub restarted or the reader fell behind the ring):
	// fetch a snapshot, then carry on from the notice's Seq.
	KindResync = "resync"
)

// ErrResync: the requested sequence is no longer kept, or belongs to an
// earlier hub run; the reader must fetch a snapshot and resume from the head.
var ErrResync = errors.New("resync: the changes after that sequence are no longer kept; fetch a snapshot and resume from the head")

// Change is one state change as the stream delivers it. Seq numbers are
// consecutive within one Epoch (one hub run).
type Change struct {
	Seq   uint64 `json:"seq"`
	Epoch string `json:"epoch"`
	// Kind is "presence", or the first segment of the store key written
	// ("personas", "confirmations", ...), or "resync".
	Kind string `json:"kind"`
	// Key is the store key or presence id the change is about.
	Key string `json:"key,omitempty"`
	// Rev is the store revision of a store change.
	Rev    int64           `json:"rev,omitempty"`
	Delete bool            `json:"delete,omitempty"`
	Time   time.Time       `json:"time"`
	Data   json.RawMessage `json:"data,omitempty"`
}

// Kinds of store change on the stream.
const (
	KindPersona      = "persona"
	KindSeat         = "seat"
	KindConfirmation = "confirmation"
	KindPrompt       = "prompt"
	KindAudit        = "audit"
	KindReaction     = "reaction"
	// KindAssignment: a task record (internal/tasks) assigned, reported on
	// or removed; Data is a tasks.Task.
	KindAssignment = "assignment"
	// KindMessage: a coordination message admitted to (or, a delete, acked
	// out of) a seat's inbox; Data is a coord.Message.
	KindMessage = "message"
	// KindChannelItem: an item of a human's channel written or changed
	// (sent, acked, reacted to, ticked, a reply); Data is a channel.Item.
	KindChannelItem = "channel_item"
	// KindTyping: a persona's typing indicator shown (Data is a
	// channel.Typing) or cleared (delete: true).
	KindTyping = "typing"
	// KindRun: a run created, moved or changed by an event or an artifact
	// (internal/runs); Data is a runs.Run.
	KindRun = "run"
	// KindRunEvent: an event appended to a run's log; Data is a
	// runs.Event, Key names its run (runs/event/<run>/<seq>).
	KindRunEvent = "run_event"
	// KindArtifact: an artifact recorded on a run; Data is a runs.Artifact.
	KindArtifact = "artifact"
	// KindDecision: a decision raised or resolved (internal/decisions);
	// Data is a decisions.Decision.
	KindDecision = "decision"
)
