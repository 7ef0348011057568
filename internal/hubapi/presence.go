package hubapi

import (
	"errors"

	"github.com/virgo-hub/virgo-tui/internal/usecase"
)

// State is what an operator sees of a persona generation's runtime (the
// service layer's presence state, the payload of a presence event).
type State = usecase.PresenceState

// SessionState is what a resident session reports of its turn (the
// service layer's, usecase.SessionState).
type SessionState = usecase.SessionState

// The session states a resident session's hooks report (the service
// layer's, usecase.SessionWorking, ...).
const (
	SessionWorking = usecase.SessionWorking
	SessionIdle    = usecase.SessionIdle
	SessionEnded   = usecase.SessionEnded
	SessionWaiting = usecase.SessionWaiting
)

// ErrUnknownPersona: presence was reported for a generation the hub does not track.
var ErrUnknownPersona = errors.New("unknown persona generation")

// Presence is the view of one persona generation, as listed and streamed
// (the payload of a presence event; see usecase.Presence).
type Presence = usecase.Presence

// ErrControlText: a text holding a control, bidi or invisible character,
// which would reach every operator's terminal as an escape sequence or
// reorder what the operator reads.
var ErrControlText = errors.New("text holds a control, bidi or invisible character (not allowed in stored text)")

// The presence states, in the order an operator reads them (the service
// layer's, usecase.PresenceStanding, ...).
const (
	StateStanding = usecase.PresenceStanding
	StateActive   = usecase.PresenceActive
	StateIdle     = usecase.PresenceIdle
	StateStale    = usecase.PresenceStale
	StateOffline  = usecase.PresenceOffline
	StateRetired  = usecase.PresenceRetired
)
