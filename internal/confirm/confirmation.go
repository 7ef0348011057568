package confirm

import (
	"time"
)

// State is where a confirmation is in its life.
type State string

// The states of a confirmation. Approved, denied, expired and withdrawn
// are terminal.
const (
	StatePending  State = "pending"
	StateApproved State = "approved"
	StateDenied   State = "denied"
	// StateExpired counts as denied.
	StateExpired State = "expired"
	// StateWithdrawn counts as denied: the generation that asked was
	// retired while it was pending (see queue.Queue.PlanWithdraw).
	StateWithdrawn State = "withdrawn"
)

// Terminal reports whether the state is final.
func (s State) Terminal() bool { return s != StatePending }

// Kind says what a confirmation gates.
type Kind string

// The kinds of confirmation.
const (
	// KindOperation gates a persona's tool call under its stamp.
	KindOperation Kind = "operation"
	// KindActivation gates a new persona generation's stamp (a permission change).
	KindActivation Kind = "activation"
	// KindRetirement gates a persona's retirement (destructive).
	KindRetirement Kind = "retirement"
)

// Confirmation is one queued request for an authority's decision.
type Confirmation struct {
	ID   string `json:"id"`
	Kind Kind   `json:"kind"`
	// Requester is the caller's identity, never a field of the request body.
	Requester Principal `json:"requester"`
	// Authority is the routed decider; AuthorityBinding says how it was
	// bound ("bound human human:henry", "owning lead work/core/lead held by …").
	Authority        Principal `json:"authority"`
	AuthorityBinding string    `json:"authority_binding"`
	Route            Route     `json:"route"`
	// Unroutable: the authority seat was empty at request time; nobody can
	// decide until the seat gains an active holder, when the confirmation is
	// re-routed to it (queue.Queue.PlanReroute).
	Unroutable bool      `json:"unroutable,omitempty"`
	Operation  Operation `json:"operation"`
	// PersonaID and Profile identify the stamp's persona generation and class.
	PersonaID string `json:"persona_id,omitempty"`
	Profile   string `json:"profile"`
	StampHash string `json:"stamp_hash"`
	// ClassKey is stamp.ClassKey of the stamp, recorded when an operation
	// is queued, so that the class-overlay rule of remembering it is known
	// from the record alone (RememberRuleIn).
	ClassKey      string     `json:"class_key,omitempty"`
	CorrelationID string     `json:"correlation_id"`
	Fingerprint   string     `json:"fingerprint"`
	Boundary      BoundaryID `json:"boundary"`
	Reason        string     `json:"reason,omitempty"`
	// Detail is shown to the decider (an activation's class-matrix diff).
	Detail string `json:"detail,omitempty"`
	// RequestReason is the reason the requester gave (a retirement's),
	// recorded by the registry when the request is carried out.
	RequestReason string          `json:"request_reason,omitempty"`
	CreatedAt     time.Time       `json:"created_at"`
	ExpiresAt     time.Time       `json:"expires_at"`
	State         State           `json:"state"`
	Decision      *DecisionRecord `json:"decision,omitempty"`
}

// DecisionRecord is what is committed durably before the requester is told
// (spec: "The decision record stores the requester, authority binding,
// normalized operation, stamp hash, decision, and correlation id before
// execution").
type DecisionRecord struct {
	Requester        Principal `json:"requester"`
	Authority        Principal `json:"authority"`
	AuthorityBinding string    `json:"authority_binding"`
	Operation        Operation `json:"operation"`
	StampHash        string    `json:"stamp_hash"`
	// Decision is approved, denied or expired.
	Decision      State     `json:"decision"`
	Decider       Principal `json:"decider"`
	CorrelationID string    `json:"correlation_id"`
	Time          time.Time `json:"time"`
	Remember      Remember  `json:"remember,omitempty"`
	Reason        string    `json:"reason,omitempty"`
	// Via is the transport the decider decided through, when not the local socket.
	Via *Via `json:"via,omitempty"`
}

// effective is the state as it counts now: a pending confirmation past its
// expiry counts as expired (denied) even before a sweep records it.
func (c *Confirmation) effective(now time.Time) State {
	if c.State == StatePending && !now.Before(c.ExpiresAt) {
		return StateExpired
	}
	return c.State
}

// Status is what a requester may do now.
type Status string

// The statuses of a request.
const (
	// StatusAllowed: execute (allowed outright, by a remembered approval,
	// or by an approved confirmation whose record is committed).
	StatusAllowed Status = "allowed"
	// StatusDenied: terminal; do not execute.
	StatusDenied Status = "denied"
	// StatusUnknown: not yet known (pending). Never terminal; retry under
	// the same correlation id.
	StatusUnknown Status = "unknown"
)

// DefaultDecidedRetention is how long a decided confirmation is kept after
// its decision; the audit log keeps the decision itself: the limits
// table's decided_retention.
const DefaultDecidedRetention = 30 * 24 * time.Hour

// Result answers a request.
type Result struct {
	Status   Status   `json:"status"`
	Decision Decision `json:"decision"`
	// Confirmation is the queued confirmation, when the verdict was confirm.
	Confirmation *Confirmation `json:"confirmation,omitempty"`
}

// ResultOf maps a confirmation to what its requester may do at now.
func ResultOf(c *Confirmation, d Decision, now time.Time) Result {
	r := Result{Decision: d, Confirmation: c}
	switch c.effective(now) {
	case StateApproved:
		r.Status = StatusAllowed
	case StateDenied, StateExpired, StateWithdrawn:
		r.Status = StatusDenied
	default:
		r.Status = StatusUnknown
	}
	return r
}

// StateAt is the state as it counts at now (a pending confirmation past its
// expiry counts as expired, that is denied).
func (c *Confirmation) StateAt(now time.Time) State { return c.effective(now) }
