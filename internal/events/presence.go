package events

import (
	"errors"
	"fmt"
	"time"
)

// PresenceState is what an operator sees of a persona generation's
// runtime: standing, active, idle, stale, offline or retired (the hub's
// API names each: hubapi.StateStanding, ...).
type PresenceState string

// The presence states, in the order an operator reads them.
const (
	// PresenceStanding: the stamp is valid and the seat held, but no
	// runtime has reported since the hub started.
	PresenceStanding PresenceState = "standing"
	// PresenceActive: the runtime beats and its activity changed recently.
	PresenceActive PresenceState = "active"
	// PresenceIdle: the runtime beats but its activity has not changed for
	// the idle interval.
	PresenceIdle PresenceState = "idle"
	// PresenceStale: heartbeats stopped for longer than the stale interval.
	PresenceStale PresenceState = "stale"
	// PresenceOffline: heartbeats stopped for longer than the offline
	// interval.
	PresenceOffline PresenceState = "offline"
	// PresenceRetired: the generation was retired; terminal.
	PresenceRetired PresenceState = "retired"
)

// SessionState is what a persona's resident session reports of itself
// through its harness's hooks: its turn, not its heartbeat.
type SessionState string

// The session states a harness reports.
const (
	// SessionWorking: a turn runs (a prompt was submitted, a tool is used).
	SessionWorking SessionState = "working"
	// SessionIdle: the harness waits at its input line, nothing typed (its
	// turn stopped, or a session began and no turn has): a wake may be
	// typed into it.
	SessionIdle SessionState = "idle"
	// SessionEnded: the harness ended its session; the runtime is
	// offline from that moment, not when its heartbeats time out.
	SessionEnded SessionState = "ended"
	// SessionWaiting is shown, never reported: a working session whose
	// persona waits on a confirmation (Presence.Waiting) waits for a human.
	SessionWaiting SessionState = "waiting"
)

// ErrUnknownSessionState: a session state a harness cannot report.
var ErrUnknownSessionState = errors.New("unknown session state")

// CheckSessionState refuses a reported state other than working, idle and
// ended.
func CheckSessionState(s SessionState) error {
	switch s {
	case SessionWorking, SessionIdle, SessionEnded:
		return nil
	}
	return fmt.Errorf("session %q: %w; report %s, %s or %s", s, ErrUnknownSessionState, SessionWorking, SessionIdle, SessionEnded)
}

// Presence is the view of one persona generation's runtime, the payload of
// a presence event: the front end that tracks heartbeats publishes it.
type Presence struct {
	// ID is the generation id (the registry's persona id).
	ID         string        `json:"id"`
	Address    string        `json:"address"`
	Name       string        `json:"name"`
	Generation int           `json:"generation"`
	State      PresenceState `json:"state"`
	LastSeen   time.Time     `json:"last_seen,omitzero"`
	Activity   string        `json:"activity,omitempty"`
	Summary    string        `json:"summary,omitempty"`
	// Waiting is the number of pending confirmations this generation
	// requested and is waiting on.
	Waiting int `json:"waiting"`
	// Beats counts heartbeats received since the hub started; a reader can
	// tell from it whether it saw every beat.
	Beats uint64 `json:"beats"`
	// ActivityAt is when the activity or summary last changed.
	ActivityAt time.Time `json:"activity_at,omitzero"`
	// Session is what its resident session last reported of its turn
	// (empty: no session reported); Shown adds waiting.
	Session SessionState `json:"session,omitempty"`
	// Problem says why a generation is not standing although active: its
	// capability stamp was refused. It is then shown offline.
	Problem string `json:"problem,omitempty"`
}

// SessionShown is the session state an operator reads: waiting when a
// working session's persona waits on a confirmation, else as reported.
func (p Presence) SessionShown() SessionState {
	if p.Session == SessionWorking && p.Waiting > 0 {
		return SessionWaiting
	}
	return p.Session
}
