package confirm

import (
	"fmt"

	"github.com/virgo-hub/virgo-tui/internal/stamp"
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
	// bit is the shape's member of a shapeSet (set from stamp.Shapes).
	bit shapeSet
}

// shapeSet is a set of shapes, one bit each, so that "does the tool carry
// this shape" costs an AND on the allow path.
type shapeSet uint32

// shapesOf is the set of shapes ss.
func shapesOf(ss []stamp.Shape) shapeSet {
	var set shapeSet
	for _, s := range ss {
		set |= shapeTable[s].bit
	}
	return set
}

func init() {
	for i, s := range stamp.Shapes() {
		info := shapeTable[s] // TestShapeTableCoversTheVocabulary keeps every shape here
		info.bit = 1 << i
		shapeTable[s] = info
	}
}

// shapeTable is the shape table: how Authorize treats each shape of the
// stamp's vocabulary (stamp.Shapes). A shape that is not here is refused as
// outside the stamped scope.
var shapeTable = map[stamp.Shape]shapeInfo{
	stamp.ShapeReadRange:        {kind: kindRead},
	stamp.ShapeReadMeta:         {kind: kindRead},
	stamp.ShapeWriteCreate:      {kind: kindWrite},
	stamp.ShapeWriteOverwrite:   {kind: kindWrite},
	stamp.ShapeRecordWrite:      {kind: kindRecord},
	stamp.ShapeMessageSend:      {kind: kindMessage},
	stamp.ShapeDelete:           {kind: kindBoundary, boundary: BoundaryDestructive},
	stamp.ShapePublishExternal:  {kind: kindBoundary, boundary: BoundaryPublication},
	stamp.ShapeDeploy:           {kind: kindBoundary, boundary: BoundaryPublication},
	stamp.ShapePermissionChange: {kind: kindBoundary, boundary: BoundaryCredentialOrPermission},
	stamp.ShapeCredentialChange: {kind: kindBoundary, boundary: BoundaryCredentialOrPermission},
	stamp.ShapeCredentialRead:   {kind: kindBoundary, boundary: BoundarySecretValues},
	stamp.ShapeCredentialExport: {kind: kindBoundary, boundary: BoundarySecretValues},
	stamp.ShapeExportAuthority:  {kind: kindBoundary, boundary: BoundaryAuthorityMaterial},
}

// ParseShape accepts exactly a known shape (no case folding: shapes are
// compared byte for byte in the prompt registry).
func ParseShape(s string) (stamp.Shape, error) {
	if _, ok := shapeTable[stamp.Shape(s)]; !ok {
		return "", fmt.Errorf("shape %q: %w", s, ErrUnknownShape)
	}
	return stamp.Shape(s), nil
}
