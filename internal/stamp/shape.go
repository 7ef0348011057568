package stamp

// Shape is what an operation does to its target, independent of the tool
// that does it. The handler names the shape; the prompt registry keys on it;
// the inventory says which shapes each tool may carry (InventoryTool.Shapes).
type Shape string

// The operation shapes. Read, write, record and message shapes on the
// persona's own scope are recoverable; the rest sit at a global boundary
// (internal/confirm's shape table says which).
const (
	// ShapeReadRange: a ranged read (byte offset and length) of a file or record.
	ShapeReadRange Shape = "read:range"
	// ShapeReadMeta: listing, stat, hash, list/get of records, a bounded graph query.
	ShapeReadMeta Shape = "read:meta"
	// ShapeWriteCreate: an atomic write creating a workspace file.
	ShapeWriteCreate Shape = "write:create"
	// ShapeWriteOverwrite: an atomic write replacing a workspace file.
	ShapeWriteOverwrite Shape = "write:overwrite"
	// ShapeRecordWrite: appending to a coordination, presence, task,
	// decision or run record (raise, report, ack, create_run, append_run_event ...).
	ShapeRecordWrite Shape = "record:write"
	// ShapeMessageSend: sending a coordination or bound human-surface message.
	ShapeMessageSend Shape = "message:send"
	// ShapeDelete: removing a file, record or persona; destructive.
	ShapeDelete Shape = "delete"
	// ShapePublishExternal: publishing outside the installation.
	ShapePublishExternal Shape = "publish:external"
	// ShapeDeploy: deploying outside standing delegation.
	ShapeDeploy Shape = "deploy"
	// ShapePermissionChange: granting or changing permissions (a file's
	// mode, a stamp activation).
	ShapePermissionChange Shape = "permission:change"
	// ShapeCredentialChange: creating, rotating or revoking a credential.
	ShapeCredentialChange Shape = "credential:change"
	// ShapeCredentialRead: reading a secret credential value.
	ShapeCredentialRead Shape = "credential:read"
	// ShapeCredentialExport: exporting a secret credential value.
	ShapeCredentialExport Shape = "credential:export"
	// ShapeExportAuthority: exporting lease, fence or authority material.
	ShapeExportAuthority Shape = "export:authority"
)

// Shapes lists every known shape, for help texts, validation and the
// exhaustive authorization test.
func Shapes() []Shape {
	return []Shape{ShapeReadRange, ShapeReadMeta, ShapeWriteCreate, ShapeWriteOverwrite, ShapeRecordWrite,
		ShapeMessageSend, ShapeDelete, ShapePublishExternal, ShapeDeploy, ShapePermissionChange,
		ShapeCredentialChange, ShapeCredentialRead, ShapeCredentialExport, ShapeExportAuthority}
}

// Kind says what a tool does: it decides the shapes the tool may carry. A
// cell marked R exposes a bundle's read tools only; W, R/W and C expose the
// whole bundle, because a bundle that mutates needs its own reads (the
// reaction catalogue before apply).
type Kind uint8

// The tool kinds.
const (
	// KindRead: lists, stats, hashes, gets and ranged reads; never mutates.
	KindRead Kind = iota
	// KindWrite: atomic workspace writes — and, being file operations, the
	// removal of a file and a change of its mode or of a credential it holds.
	KindWrite
	// KindRecord: appends to a coordination, presence, task, decision or run
	// record.
	KindRecord
	// KindMessage: sends to a persona or a bound human surface.
	KindMessage
	// KindDelete: removes a record or file and nothing else (no v1 inventory
	// tool is one: v1 removes files through workspace_write).
	KindDelete
	// KindPublish: publishes or deploys outside the installation.
	KindPublish
)

// kinds is the kind table: each kind's name and the shapes its tools carry.
// No kind carries credential:read, credential:export or export:authority:
// reading or exporting secret values and authority material is denied
// whatever the tool.
var kinds = [...]struct {
	name   string
	shapes []Shape
}{
	KindRead:    {"read", []Shape{ShapeReadRange, ShapeReadMeta}},
	KindWrite:   {"write", []Shape{ShapeWriteCreate, ShapeWriteOverwrite, ShapeDelete, ShapePermissionChange, ShapeCredentialChange}},
	KindRecord:  {"record", []Shape{ShapeRecordWrite}},
	KindMessage: {"message", []Shape{ShapeMessageSend}},
	KindDelete:  {"delete", []Shape{ShapeDelete}},
	KindPublish: {"publish", []Shape{ShapePublishExternal, ShapeDeploy}},
}

// String names the kind.
func (k Kind) String() string {
	if int(k) >= len(kinds) {
		return "unknown"
	}
	return kinds[k].name
}

// Mutates reports whether tools of the kind change anything: every kind
// but read. An R cell of the class matrix exposes no tool that mutates.
func (k Kind) Mutates() bool { return k != KindRead }

// Shapes are the shapes tools of the kind carry. Callers must not modify
// the result.
func (k Kind) Shapes() []Shape {
	if int(k) >= len(kinds) {
		return nil
	}
	return kinds[k].shapes
}

// Reach is a kind of target a tool's operation addresses. The names are
// the target kinds of an operation's text form (internal/confirm parses
// "path:…", "address:…" and so on).
type Reach string

// The target kinds a tool may reach.
const (
	ReachPath     Reach = "path"
	ReachAddress  Reach = "address"
	ReachTask     Reach = "task"
	ReachRun      Reach = "run"
	ReachDecision Reach = "decision"
	ReachSurface  Reach = "surface"
	ReachExternal Reach = "external"
)
