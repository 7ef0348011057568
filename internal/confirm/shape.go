package confirm

import "fmt"

// Shape is what an operation does to its target, independent of the tool
// that does it. The handler names the shape; the prompt registry keys on it.
type Shape string

// The operation shapes. Read and write shapes on the persona's own scope are
// recoverable; the rest sit at a global boundary (see shapeTable).
const (
	// ShapeReadRange: a ranged read (byte offset and length) of a file or record.
	ShapeReadRange Shape = "read:range"
	// ShapeReadMeta: listing, stat, hash, list/get of records, a bounded graph query.
	ShapeReadMeta Shape = "read:meta"
	// ShapeWriteCreate: an atomic write creating a workspace file.
	ShapeWriteCreate Shape = "write:create"
	// ShapeWriteOverwrite: an atomic write replacing a workspace file.
	ShapeWriteOverwrite Shape = "write:overwrite"
	// ShapeRecordWrite: appending to a coordination, task, decision or run
	// record (raise, report, ack, create_run, append_run_event ...).
	ShapeRecordWrite Shape = "record:write"
	// ShapeMessageSend: sending a coordination or bound human-surface message.
	ShapeMessageSend Shape = "message:send"
	// ShapeDelete: removing a file, record or persona; destructive.
	ShapeDelete Shape = "delete"
	// ShapePublishExternal: publishing outside the installation.
	ShapePublishExternal Shape = "publish:external"
	// ShapeDeploy: deploying outside standing delegation.
	ShapeDeploy Shape = "deploy"
	// ShapePermissionChange: granting or changing permissions (a stamp activation).
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

// shapeKind groups shapes by how Authorize treats them.
type shapeKind uint8

const (
	kindRead shapeKind = iota
	kindWrite
	kindRecord
	kindMessage
	kindBoundary // the shape alone decides: its boundary applies
)

// shapeInfo is one row of the shape table.
type shapeInfo struct {
	kind     shapeKind
	boundary BoundaryID
}

// shapeTable is the shape table: the data Authorize reads. A shape that is
// not here is refused as outside the stamped scope.
var shapeTable = map[Shape]shapeInfo{
	ShapeReadRange:        {kind: kindRead},
	ShapeReadMeta:         {kind: kindRead},
	ShapeWriteCreate:      {kind: kindWrite},
	ShapeWriteOverwrite:   {kind: kindWrite},
	ShapeRecordWrite:      {kind: kindRecord},
	ShapeMessageSend:      {kind: kindMessage},
	ShapeDelete:           {kind: kindBoundary, boundary: BoundaryDestructive},
	ShapePublishExternal:  {kind: kindBoundary, boundary: BoundaryPublication},
	ShapeDeploy:           {kind: kindBoundary, boundary: BoundaryPublication},
	ShapePermissionChange: {kind: kindBoundary, boundary: BoundaryCredentialOrPermission},
	ShapeCredentialChange: {kind: kindBoundary, boundary: BoundaryCredentialOrPermission},
	ShapeCredentialRead:   {kind: kindBoundary, boundary: BoundarySecretValues},
	ShapeCredentialExport: {kind: kindBoundary, boundary: BoundarySecretValues},
	ShapeExportAuthority:  {kind: kindBoundary, boundary: BoundaryAuthorityMaterial},
}

// Shapes lists every known shape, for help texts and validation.
func Shapes() []Shape {
	return []Shape{ShapeReadRange, ShapeReadMeta, ShapeWriteCreate, ShapeWriteOverwrite, ShapeRecordWrite,
		ShapeMessageSend, ShapeDelete, ShapePublishExternal, ShapeDeploy, ShapePermissionChange,
		ShapeCredentialChange, ShapeCredentialRead, ShapeCredentialExport, ShapeExportAuthority}
}

// ParseShape accepts exactly a known shape (no case folding: shapes are
// compared byte for byte in the prompt registry).
func ParseShape(s string) (Shape, error) {
	if _, ok := shapeTable[Shape(s)]; !ok {
		return "", fmt.Errorf("shape %q: %w", s, ErrUnknownShape)
	}
	return Shape(s), nil
}
