package confirm

import (
	"time"
)

// AuditEntry is one line of the audit log. Entries are written in the same
// transaction as the change they record, so the log never misses a decision
// nor records one that did not happen.
type AuditEntry struct {
	Time time.Time `json:"time"`
	// Event: requested, joined, rerouted, unroutable (its seat's holder
	// left it), approved, denied, expired, withdrawn, prompt-carried-forward,
	// prompt-dropped, tool-call (a persona's tool call the hub carried out,
	// usecase.CallTool), inbox-reply, inbox-react, inbox-ack, inbox-tick (the
	// human's acts on their channel).
	Event          string     `json:"event"`
	ConfirmationID string     `json:"confirmation_id,omitempty"`
	CorrelationID  string     `json:"correlation_id,omitempty"`
	Actor          Principal  `json:"actor"`
	Persona        string     `json:"persona,omitempty"`
	Operation      string     `json:"operation,omitempty"`
	Boundary       BoundaryID `json:"boundary"`
	Authority      Principal  `json:"authority,omitempty"`
	// Requester and AuthorityBinding are set on a decision's entry, so
	// that with the rest it is the whole decision record the spec asks
	// for, kept after the confirmation itself ages out (PlanAgeOut).
	Requester        Principal `json:"requester,omitempty"`
	AuthorityBinding string    `json:"authority_binding,omitempty"`
	StampHash        string    `json:"stamp_hash,omitempty"`
	Remember         Remember  `json:"remember,omitempty"`
	Reason           string    `json:"reason,omitempty"`
	// Via is the transport a human acted through when it was not the
	// local socket ("ssh" and the key's fingerprint).
	Via *Via `json:"via,omitempty"`
}
