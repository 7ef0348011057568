package hubapi

import (
	"encoding/json"

	"github.com/virgo-hub/virgo-tui/internal/tools"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/snapshot"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// APIVersion is the version prefix this hub serves.
const APIVersion = "v1"

// SupportedVersions lists every API version the hub answers.
var SupportedVersions = []string{APIVersion}

// IdempotencyHeader carries a write's client-chosen key: every attempt of
// one write sends the same key, so that the hub can answer a repeat with
// the original result.
const IdempotencyHeader = "Idempotency-Key"

// MaxBody is the largest request body the hub reads (1 MiB); a larger one
// is refused with 413 before it is parsed.
const MaxBody = 1 << 20

// IdentityClaims are fields a client may send but the hub ignores: who
// asks and who decides come from the bearer token only. Accepting them
// (rather than refusing unknown fields) keeps old clients working and makes
// the rule visible in one place.
type IdentityClaims struct {
	Requester json.RawMessage `json:"requester,omitempty"`
	Decider   json.RawMessage `json:"decider,omitempty"`
	Principal json.RawMessage `json:"principal,omitempty"`
}

// AssignRequest is the body of POST /v1/assignments: assign (or, with
// Remove, unassign) a task to a coder-deputy. Who assigns is the token's
// identity: the deputy's owning lead or its bound human, never the deputy.
type AssignRequest struct {
	IdentityClaims
	// Persona is the deputy: an address (its current holder), a name or a
	// generation id.
	Persona string `json:"persona" limit:"ref"`
	// Task is scope/project/task, in the deputy's project.
	Task   string `json:"task" limit:"ref"`
	Remove bool   `json:"remove,omitempty"`
}

// OperationRequest names one tool call of a persona: the body of
// POST /v1/authorize and POST /v1/confirmations.
type OperationRequest struct {
	IdentityClaims
	// Persona is whose stamp applies: ignored for a persona's token (its
	// own), required for an operator's.
	Persona string `json:"persona,omitempty" limit:"ref"`
	Tool    string `json:"tool" limit:"ref"`
	// Target is the target in its kind's text form ("path:QUEUE.md",
	// "address:work/core/lead", ...).
	Target string `json:"target" limit:"target"`
	Shape  string `json:"shape" limit:"ref"`
	// CorrelationID names the request for retries (confirmations only).
	CorrelationID string `json:"correlation_id,omitempty" limit:"correlation_id"`
}

// Authorization is the answer of POST /v1/authorize: the hub's whole
// decision on one operation, which `virgo-tui authorize` only prints.
type Authorization struct {
	// Operation is the operation as normalized under the persona's stamp
	// (without a target when normalization refused it as an escape).
	Operation confirm.Operation `json:"operation"`
	// Decision carries the verdict, the boundary that decided and why.
	Decision confirm.Decision `json:"decision"`
	// Route is who decides a confirm verdict ("none" otherwise).
	Route confirm.Route `json:"route"`
	// BoundaryText is the boundary's sentence.
	BoundaryText string `json:"boundary_text"`
	// StampHash is the hash of the stamp the decision was made under.
	StampHash string `json:"stamp_hash"`
}

// DecideRequest is the body of POST /v1/confirmations/{id}/decide.
type DecideRequest struct {
	IdentityClaims
	Approve bool `json:"approve"`
	// Remember is "", "persona" or "class".
	Remember confirm.Remember `json:"remember,omitempty"`
	// Reason is required for a denial.
	Reason string `json:"reason,omitempty" limit:"reason"`
}

// PromptReviewRequest is the body of POST /v1/prompts/{id}/carry-forward
// and POST /v1/prompts/{id}/drop: whose stale learned choice {id} is.
type PromptReviewRequest struct {
	IdentityClaims
	// Persona is an address (its current holder), a name or a generation id.
	Persona string `json:"persona" limit:"ref"`
}

// PersonaView is a persona record with its live presence (absent for
// pending and refused generations, which have no runtime).
type PersonaView struct {
	Persona  registry.Persona `json:"persona"`
	Presence *Presence        `json:"presence,omitempty"`
}

// RetireRequest is the body of POST /v1/personas/retire.
type RetireRequest struct {
	IdentityClaims
	// Persona is an address (its current holder), a name or a generation id.
	Persona string `json:"persona" limit:"ref"`
	Reason  string `json:"reason" limit:"reason"`
}

// Retirement is the answer of POST /v1/personas/retire: the persona and,
// for a stamped one, the retirement confirmation queued for its bound human.
type Retirement struct {
	Persona      PersonaView           `json:"persona"`
	Confirmation *confirm.Confirmation `json:"confirmation,omitempty"`
}

// SnapshotMediaType is the media type of a snapshot file on the wire: the
// answer of GET /v1/snapshots/{ref} and the body of POST
// /v1/snapshots/restore.
const SnapshotMediaType = "application/x-tar"

// Restored is the answer of POST /v1/snapshots/restore: what a restore
// did and what waits for a human. The hub converts the use case's answer
// (usecase.Restored) to it, so the two keep the same fields.
type Restored struct {
	// Persona is the generation the layer was restored to.
	Persona registry.Persona `json:"persona"`
	// Registered: the snapshot's generation is not this installation's,
	// so a new pending generation of its seat was registered, its
	// activation queued (Confirmation) for the bound human.
	Registered   bool                  `json:"registered"`
	Confirmation *confirm.Confirmation `json:"confirmation,omitempty"`
	// Renamed: the snapshot's name is taken here; the new generation has
	// the name in Persona.
	Renamed bool `json:"renamed"`
	// Unbound is the repository binding the snapshot had and this host
	// lacks: the new generation is registered without it.
	Unbound string `json:"unbound,omitempty"`
	// StampEqual: the generation's stamp hash here is the snapshot's, so
	// its learned choices match as they were. Otherwise every one of them
	// waits for a human's review (prompts review): never silently widened.
	StampEqual bool `json:"stamp_equal"`
	// Written is how many learned choices were written, Present how many
	// were there already, Review how many of the snapshot's wait for a
	// human's review.
	Written int `json:"written"`
	Present int `json:"present"`
	Review  int `json:"review"`
	// Stamp is true when the stamp bytes, missing from the store, were
	// written back.
	Stamp bool `json:"stamp_restored"`
}

// Names is the answer of GET /v1/names.
type Names struct {
	Suggestions []string `json:"suggestions"`
}

// Health is the answer of GET /v1/health.
type Health struct {
	PID      int      `json:"pid"`
	Epoch    string   `json:"epoch"`
	Head     uint64   `json:"head"`
	Home     string   `json:"home"`
	Versions []string `json:"versions"`
	// EnrolsByFile tells a command on this home whether a first install's
	// token file written here would enrol its operator
	// (operators.EnrolsByFile): false once the installation has operators
	// enrolled elsewhere and none here.
	EnrolsByFile bool `json:"enrols_by_file"`
}

// HandOver is the answer of POST /v1/hub/handover: the hub that agreed to
// stop serving its home, so that `serve` takes it over.
type HandOver struct {
	PID int `json:"pid"`
}

// PresenceReport is the body of a beat or set: a heartbeat with, optionally,
// a new activity and summary (absent fields are left as they are).
type PresenceReport struct {
	IdentityClaims
	Activity *string `json:"activity,omitempty" limit:"activity"`
	Summary  *string `json:"summary,omitempty" limit:"summary"`
	// Session is the resident session's state, as its harness's hooks
	// report it (events.SessionState: working, idle or ended).
	Session *SessionState `json:"session,omitempty" limit:"ref"`
}

// BeatAck is the answer to a beat: the presence as the hub now holds it.
type BeatAck struct {
	State State  `json:"state"`
	Beats uint64 `json:"beats"`
}

// BeatStreamResult is the answer when a beat stream ends.
type BeatStreamResult struct {
	Reports uint64 `json:"reports"`
	State   State  `json:"state"`
}

// Snapshot is the state a console starts from. It includes every change up
// to Seq (it may include a few later ones too: stream changes carry whole
// records, so applying one twice is harmless).
type Snapshot struct {
	Epoch    string        `json:"epoch"`
	Seq      uint64        `json:"seq"`
	Home     string        `json:"home"`
	Operator Identity      `json:"operator"`
	Personas []PersonaView `json:"personas"`
	// Confirmations are the pending ones.
	Confirmations []*confirm.Confirmation `json:"confirmations"`
	// Kept are the snapshots the hub's home keeps of retired generations
	// (docs/snapshots.md), by seat.
	Kept []KeptSnapshot `json:"kept,omitempty"`
}

// KeptSnapshot is one snapshot a home keeps of a seat's generation.
type KeptSnapshot struct {
	Address string `json:"address"`
	snapshot.Kept
}

// StampView is a persona generation's stamp as the API returns it.
type StampView struct {
	PersonaID string      `json:"persona_id"`
	Address   string      `json:"address"`
	Hash      string      `json:"hash"`
	Stamp     stamp.Stamp `json:"stamp"`
}

// DiffView is the answer of GET /v1/stamps/diff: the class-matrix diff and
// its rendering.
type DiffView struct {
	Diff stamp.MatrixDiff `json:"diff"`
	Text string           `json:"text"`
}

// RegisterRequest is the body of POST /v1/personas: what persona add asks.
type RegisterRequest struct {
	IdentityClaims
	Address        string `json:"address" limit:"ref"`
	Name           string `json:"name" limit:"name"`
	Human          string `json:"human,omitempty" limit:"ref"`
	Repository     string `json:"repository,omitempty" limit:"target"`
	SessionLineage string `json:"session_lineage,omitempty" limit:"ref"`
	CharacterHash  string `json:"character_hash,omitempty" limit:"ref"`
	// HumanSurfaces are the persona's human-surface bindings.
	HumanSurfaces []stamp.SurfaceBinding `json:"human_surfaces,omitempty"`
}

// RegistrationPreview is the answer of POST /v1/personas?dry_run=1: what
// the registration would write, from a dry run of the registration itself
// (the generation's id, lineage and character hash are drawn again when it
// registers). Previous is the seat's previous stamp, null for a new seat.
type RegistrationPreview struct {
	Persona   registry.Persona `json:"persona"`
	StampHash string           `json:"stamp_hash"`
	Stamp     stamp.Stamp      `json:"stamp"`
	Previous  *stamp.Stamp     `json:"previous"`
}

// Registered is the answer of a registration: the pending generation and
// the activation confirmation queued for its bound human.
type Registered struct {
	Persona      registry.Persona      `json:"persona"`
	StampHash    string                `json:"stamp_hash"`
	Confirmation *confirm.Confirmation `json:"confirmation"`
}

// ToolCallRequest is the body of POST /v1/tools/{tool}: one persona tool
// call. A persona's token calls as itself; an operator acts for the
// persona it names, under that persona's stamp.
type ToolCallRequest struct {
	IdentityClaims
	// Persona is whose stamp applies: ignored for a persona's token (its
	// own), required of an operator's.
	Persona string `json:"persona,omitempty" limit:"ref"`
	// Arguments are the tool's arguments, a JSON object checked against
	// the tool's schema (internal/tools; docs/tools.md).
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// CorrelationID names the call for its retries (or correlation_id in
	// the arguments); the hub makes one when neither is sent.
	CorrelationID string `json:"correlation_id,omitempty" limit:"correlation_id"`
}

// ToolCall is the answer of POST /v1/tools/{tool}: status done (result),
// allowed (a runtime tool's normalized operation), confirm (the
// confirmation to wait on; retry with the correlation id) or denied (the
// boundary and reason). See tools.ToolCall.
type ToolCall = tools.ToolCall
