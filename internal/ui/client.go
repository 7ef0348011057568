// Package ui is the operator console: one Bubble Tea root model with a
// presence view, an approval queue and the wizard and matrix views plugged
// into a shell. It knows nothing of bbolt, files of the store or sockets: it
// talks to the hub only through the Client interface below, so the same
// screens run against a real hub, another transport later, or a test double.
package ui

import (
	"context"
	"time"
)

// Client is everything the console asks of the hub. The coordinator adapts
// the hub client to it; the console never imports the hub.
type Client interface {
	// Snapshot returns the current state, consistent at Snapshot.Seq.
	Snapshot(ctx context.Context) (Snapshot, error)
	// Subscribe streams the changes committed after sequence number after.
	// The channel closes when the stream ends (hub gone, ctx done, the
	// subscriber fell too far behind); the console then takes a fresh
	// Snapshot and subscribes again after its Seq, so a closed stream never
	// loses a change.
	Subscribe(ctx context.Context, after uint64) (<-chan Batch, error)
	// Decide records the operator's decision on one pending confirmation.
	// Errors (expired, already decided, not routed to this operator) are
	// shown to the operator verbatim, so they should read as sentences.
	Decide(ctx context.Context, id string, d Decision) error
}

// Snapshot is the state the console starts from.
type Snapshot struct {
	// Installation is the installation's name, Home its home directory.
	Installation string
	Home         string
	// Operator is the human principal this console acts as ("human:henry");
	// confirmations whose Authority equals it are the operator's to decide.
	Operator string
	// Seq is the sequence number of the last change the snapshot includes.
	Seq           uint64
	Personas      []Persona
	Confirmations []Confirmation
}

// PresenceState is a persona's presence as the hub last saw it.
type PresenceState string

// The presence states of the hub: standing means the stamp is valid
// and no runtime has connected; stale means heartbeats were missed. Any other
// value is shown plain.
const (
	PresenceStanding PresenceState = "standing"
	PresenceActive   PresenceState = "active"
	PresenceIdle     PresenceState = "idle"
	PresenceStale    PresenceState = "stale"
	PresenceOffline  PresenceState = "offline"
	PresenceRetired  PresenceState = "retired"
)

// Persona is one row of the presence view: a seat's current holder.
type Persona struct {
	// ID is stable for a persona generation; selection follows it.
	ID         string
	Address    string
	Name       string
	Class      string // capability profile, e.g. "coder-deputy"
	Generation int
	State      PresenceState
	Activity   string
	Summary    string
	LastSeen   time.Time
	// Waiting counts this persona's pending confirmations.
	Waiting int
	// Session is its resident session's turn as the hooks report it:
	// working, waiting (for a human), idle, ended; "" when none reports.
	Session string
	// StampHash is the SHA-256 of the generation's stamp; StampSummary a
	// one-line account of it ("coder-deputy, 34 tools, 2 confirm").
	StampHash    string
	StampSummary string
	Bindings     []Binding
	Seats        []SeatRecord
}

// Binding is one binding of a persona: a human surface, an authority, the
// workspace or the repository.
type Binding struct {
	Kind   string // "surface", "authority", "workspace", "repository"
	Target string
}

// SeatRecord is one generation in the history of a persona's seat.
type SeatRecord struct {
	Generation int
	Name       string
	State      string // "active", "retired"
	From       time.Time
	Until      time.Time // zero while the generation holds the seat
	// Snapshot is the file the home keeps the generation's snapshot in
	// (written at its retirement), "" for none.
	Snapshot string
}

// Confirmation is one pending confirmation.
type Confirmation struct {
	ID            string
	CorrelationID string
	// Requester is the requesting persona's address.
	Requester string
	// Authority is who the confirmation is routed to: a human principal
	// ("human:henry") or an owning lead's address. Empty means unroutable.
	Authority string
	Boundary  string
	// Operation is the normalized operation in one line (notes quote it).
	// Tool, Target and Shape are its parts the queue lists: the exposed tool
	// name, the normalized target ("path:memory/notes.md") and the
	// operation shape ("write:overwrite"). Action is the handler action the
	// tool maps to, shown in the detail pane.
	Operation string
	Tool      string
	Target    string
	Shape     string
	Action    string
	// Arguments are the call's bound arguments: with the target and the
	// shape, exactly what an approval allows (the detail pane shows them
	// whole).
	Arguments []Argument
	StampHash string
	// MatrixDiff is the class-matrix diff text of a permission change,
	// empty for other boundaries.
	MatrixDiff string
	// Remember is exactly what "approve and remember" would store for this
	// confirmation, or why it may not be remembered.
	Remember RememberRule
	Created  time.Time
	Expires  time.Time
}

// Argument is one bound argument of a confirmation's operation: its name
// and its value as text (a multi-line text keeps its line breaks).
type Argument struct {
	Name, Value string
}

// RememberRule is the learned choice "approve and remember" stores in the
// prompt registry (spec: "keyed by stamp hash, handler action, normalized
// target scope, and operation shape"), as the remember dialog shows it
// before the operator agrees. The adapter fills it from the hub's record.
type RememberRule struct {
	// Overlay is where the choice lives: OverlayPersona or OverlayClass.
	Overlay string
	// Key is what the overlay is keyed by: the stamp hash (persona
	// overlay) or the class capability key (class overlay).
	Key string
	// Action is the handler action, Target the normalized target scope and
	// Shape the operation shape the choice matches exactly.
	Action, Target, Shape string
	// Refusal, when set, says why this confirmation may not be remembered;
	// the other fields are then empty.
	Refusal string
}

// The overlays a remembered choice can live in.
const (
	// OverlayPersona is the requesting persona's experience layer, keyed
	// by its stamp hash.
	OverlayPersona = "persona"
	// OverlayClass is the class overlay shared by every persona with the
	// same capabilities, keyed by the class capability key.
	OverlayClass = "class"
)

// Decision is the operator's answer to a confirmation.
type Decision struct {
	Approve bool
	// Remember asks the prompt registry to learn this exact choice, in
	// Overlay (the overlay of the rule the operator was shown).
	Remember bool
	Overlay  string
	// Reason is required for a denial.
	Reason string
}

// ChangeKind says what a Change carries.
type ChangeKind uint8

// The kinds of change the hub streams.
const (
	// PersonaChanged carries a new or updated Persona.
	PersonaChanged ChangeKind = iota + 1
	// PersonaRemoved carries the ID of a persona no longer shown.
	PersonaRemoved
	// ConfirmationPending carries a new pending Confirmation.
	ConfirmationPending
	// ConfirmationDecided carries the ID, decider and outcome of a
	// confirmation that left the queue (decided anywhere, or expired).
	ConfirmationDecided
	// InboxItemChanged carries an item of the operator's inbox, new or
	// changed (acked, reacted to, ticked); see InboxClient.
	InboxItemChanged
	// TypingChanged carries a persona's typing indicator; a zero Until
	// clears it.
	TypingChanged
)

// Change is one committed change, numbered by the hub.
type Change struct {
	Seq          uint64
	Kind         ChangeKind
	Persona      Persona      // PersonaChanged
	Confirmation Confirmation // ConfirmationPending
	Item         InboxItem    // InboxItemChanged
	Typing       Typing       // TypingChanged
	// ID names the removed persona or the decided confirmation.
	ID string
	// DecidedBy and Outcome describe a ConfirmationDecided
	// ("human:henry", "approved" | "denied" | "expired").
	DecidedBy string
	Outcome   string
}

// Batch is a run of changes in sequence order.
type Batch struct {
	Changes []Change
}
