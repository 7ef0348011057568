package hubapi

import (
	"errors"

	"github.com/virgo-hub/virgo-tui/internal/events"
)

// State is what an operator sees of a persona generation's runtime (the
// service layer's presence state, the payload of a presence event).
type State = events.PresenceState

// SessionState is what a resident session reports of its turn (the
// service layer's, events.SessionState).
type SessionState = events.SessionState

// The session states a resident session's hooks report (the service
// layer's, events.SessionWorking, ...).
const (
	SessionWorking = events.SessionWorking
	SessionIdle    = events.SessionIdle
	SessionEnded   = events.SessionEnded
	SessionWaiting = events.SessionWaiting
)

// ErrUnknownPersona: presence was reported for a generation the hub does not track.
var ErrUnknownPersona = errors.New("unknown persona generation")

// Presence is the view of one persona generation, as listed and streamed
// (the payload of a presence event; see events.Presence).
type Presence = events.Presence

// ErrControlText: a text holding a control, bidi or invisible character,
// which would reach every operator's terminal as an escape sequence or
// reorder what the operator reads.
var ErrControlText = errors.New("text holds a control, bidi or invisible character (not allowed in stored text)")

// The presence states, in the order an operator reads them (the service
// layer's, events.PresenceStanding, ...).
const (
	StateStanding = events.PresenceStanding
	StateActive   = events.PresenceActive
	StateIdle     = events.PresenceIdle
	StateStale    = events.PresenceStale
	StateOffline  = events.PresenceOffline
	StateRetired  = events.PresenceRetired
)
