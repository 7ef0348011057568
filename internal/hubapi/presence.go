package hubapi

import (
	"errors"
	"time"
)

// State is what an operator sees of a persona generation's runtime.
type State string

// ErrUnknownPersona: presence was reported for a generation the hub does not track.
var ErrUnknownPersona = errors.New("unknown persona generation")

// Presence is the view of one persona generation, as listed and streamed.
type Presence struct {
	// ID is the generation id (the registry's persona id).
	ID         string    `json:"id"`
	Address    string    `json:"address"`
	Name       string    `json:"name"`
	Generation int       `json:"generation"`
	State      State     `json:"state"`
	LastSeen   time.Time `json:"last_seen,omitzero"`
	Activity   string    `json:"activity,omitempty"`
	Summary    string    `json:"summary,omitempty"`
	// Waiting is the number of pending confirmations this generation
	// requested and is waiting on.
	Waiting int `json:"waiting"`
	// Beats counts heartbeats received since the hub started; a reader can
	// tell from it whether it saw every beat.
	Beats uint64 `json:"beats"`
	// ActivityAt is when the activity or summary last changed.
	ActivityAt time.Time `json:"activity_at,omitzero"`
	// Problem says why a generation is not standing although active: its
	// capability stamp was refused. It is then shown offline.
	Problem string `json:"problem,omitempty"`
}

// ErrControlText: a text holding a control, bidi or invisible character,
// which would reach every operator's terminal as an escape sequence or
// reorder what the operator reads.
var ErrControlText = errors.New("text holds a control, bidi or invisible character (not allowed in stored text)")

// The presence states, in the order an operator reads them.
const (
	// StateStanding: the stamp is valid and the seat held, but no runtime
	// has reported since the hub started.
	StateStanding State = "standing"
	// StateActive: the runtime beats and its activity changed recently.
	StateActive State = "active"
	// StateIdle: the runtime beats but its activity has not changed for the
	// idle interval.
	StateIdle State = "idle"
	// StateStale: heartbeats stopped for longer than the stale interval.
	StateStale State = "stale"
	// StateOffline: heartbeats stopped for longer than the offline interval.
	StateOffline State = "offline"
	// StateRetired: the generation was retired; terminal.
	StateRetired State = "retired"
)
