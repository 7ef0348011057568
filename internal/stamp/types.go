// Package stamp is the capability stamp factory: the class matrix and tool
// inventory as data, schema v3 and semantic validation, the canonical hash,
// the three consumer projections, legacy v1/v2 readers and the class diff.
package stamp

// SchemaVersion is the version of every stamp the factory writes.
const SchemaVersion = 3

// FileName is the name of the stamp in a persona generation's directory.
const FileName = "CAPABILITY-STAMP.json"

// Access is how an exposed tool may be used. Denied capabilities are not
// exposed at all, so there is no "deny" access.
type Access string

// The two access values of an exposed tool.
const (
	AccessAllow   Access = "allow"
	AccessConfirm Access = "confirm"
)

// Tool is one exposed tool of a stamp; the three consumer projections are
// derived from these records alone.
type Tool struct {
	// Name is the transport-neutral public tool name (MCP and launcher).
	Name string `json:"name"`
	// HandlerAction is the action the handler authorizes for this tool.
	HandlerAction string `json:"handler_action"`
	// Access is allow or confirm.
	Access Access `json:"access"`
	// Scope bounds what the tool may touch (see the Scope constants).
	Scope string `json:"scope"`
}

// Identity is the persona a stamp belongs to.
type Identity struct {
	// ID is the generation's registry id; it names its private directory.
	ID string `json:"id"`
	// Name is the for-life, owner-facing name.
	Name string `json:"name"`
	// Generation counts the seat's holders, from 1.
	Generation int `json:"generation"`
	// SessionLineage is the native session lineage id, when known.
	SessionLineage string `json:"session_lineage,omitempty"`
}

// Path is the canonical registered address and its parts. Address is
// authoritative: the parts and the profile must agree with it.
type Path struct {
	Address string `json:"address"`
	Scope   string `json:"scope"`
	Project string `json:"project,omitempty"`
	Role    string `json:"role"`
	Profile string `json:"profile"`
}

// SurfaceBinding binds a human surface (a channel the persona may message
// through virgo-channel). Bindings only: never tenant credentials.
type SurfaceBinding struct {
	// Surface is the channel the hub serves human surfaces through: always
	// DefaultSurface, "virgo-channel" (CheckSurfaceBinding).
	Surface string `json:"surface"`
	// Target is the human principal reached on it ("human:henry").
	Target string `json:"target"`
}

// Authority names who decides this persona's confirmations.
type Authority struct {
	// Human is the bound human authority, "human:<name>".
	Human string `json:"human"`
	// OwningLead is the address of the lead seat a deputy answers to.
	OwningLead string `json:"owning_lead,omitempty"`
	// LaneApprover is who authorizes a coordinator's resolutions.
	LaneApprover string `json:"lane_approver,omitempty"`
}

// Workspace is the persona's workspace binding.
type Workspace struct {
	// Root identifies the workspace (not a host path).
	Root string `json:"root"`
	// MutablePaths are workspace-relative paths or globs ("memory/**").
	MutablePaths []string `json:"mutable_paths"`
	// Repository is the optional bound repository worktree.
	Repository string `json:"repository,omitempty"`
}

// Stamp is the in-memory capability stamp of one persona generation. v1 and
// v2 readers yield this same type, with SchemaVersion 1 or 2 kept. Field
// by field: docs/stamp-v3.md.
type Stamp struct {
	SchemaVersion   int              `json:"schema_version"`
	Persona         Identity         `json:"persona"`
	Path            Path             `json:"path"`
	CompositionHash string           `json:"composition_hash"`
	GraphNamespace  string           `json:"graph_namespace"`
	HumanSurfaces   []SurfaceBinding `json:"human_surfaces"`
	Authority       Authority        `json:"authority"`
	Workspace       Workspace        `json:"workspace"`
	Tools           []Tool           `json:"tools"`
}
