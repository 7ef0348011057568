package hub

import (
	"net/http"
)

// PresenceReport is the body of a beat or set: a heartbeat with, optionally,
// a new activity and summary (absent fields are left as they are).
type PresenceReport struct {
	identityClaims
	Activity *string `json:"activity,omitempty"`
	Summary  *string `json:"summary,omitempty"`
}

// BeatAck is the answer to a beat: the presence as the hub now holds it.
type BeatAck struct {
	State State  `json:"state"`
	Beats uint64 `json:"beats"`
}

// beat is POST /v1/presence/beat: a persona runtime's heartbeat, with an
// optional activity and summary. The persona is the token's, never the body's.
func beat(h *Hub, w http.ResponseWriter, r *http.Request, id Identity) error {
	var rep PresenceReport
	if err := decodeBody(w, r, &rep, true); err != nil {
		return err
	}
	return h.report(w, id, rep)
}

// setPresence is POST /v1/presence/set: like a beat, but at least one of
// activity and summary must be given.
func setPresence(h *Hub, w http.ResponseWriter, r *http.Request, id Identity) error {
	var rep PresenceReport
	if err := decodeBody(w, r, &rep, false); err != nil {
		return err
	}
	if rep.Activity == nil && rep.Summary == nil {
		return apiErrorf(http.StatusBadRequest, "nothing_to_set", "set needs \"activity\" or \"summary\"; to only beat, POST /v1/presence/beat")
	}
	return h.report(w, id, rep)
}

func (h *Hub) report(w http.ResponseWriter, id Identity, rep PresenceReport) error {
	var err error
	switch {
	case rep.Activity != nil:
		err = h.presence.SetActivity(id.PersonaID, *rep.Activity)
	default:
		err = h.presence.Beat(id.PersonaID)
	}
	if err == nil && rep.Summary != nil {
		err = h.presence.SetSummary(id.PersonaID, *rep.Summary)
	}
	if err != nil {
		return err
	}
	p, _ := h.presence.Get(id.PersonaID)
	writeJSON(w, http.StatusOK, BeatAck{State: p.State, Beats: p.Beats})
	return nil
}

// listPresence is GET /v1/presence.
func listPresence(h *Hub, w http.ResponseWriter, r *http.Request, _ Identity) error {
	writeJSON(w, http.StatusOK, h.presence.List())
	return nil
}
