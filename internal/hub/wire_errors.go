package hub

import (
	"errors"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
)

// wireTwins maps the named errors of the use cases and the store onto the
// wire errors hubapi names for them: the wire contract links neither, so
// the server says which of its errors each wire error answers. One row
// each; a wire error named here answers nothing else.
var wireTwins = []struct{ server, wire error }{
	{usecase.ErrPersonaRequired, hubapi.ErrPersonaRequired},
	{usecase.ErrInvalidOperation, hubapi.ErrInvalidOperation},
	{usecase.ErrNotActive, hubapi.ErrNotActive},
	{usecase.ErrForbidden, hubapi.ErrForbidden},
	{usecase.ErrNoStamp, hubapi.ErrNoStamp},
	{usecase.ErrBadIdempotencyKey, hubapi.ErrBadIdempotencyKey},
	{usecase.ErrIdempotencyKeyReused, hubapi.ErrIdempotencyKeyReused},
	{usecase.ErrTaskFinished, hubapi.ErrTaskFinished},
	{usecase.ErrNoExecutor, hubapi.ErrNoExecutor},
	{usecase.ErrNotHolder, hubapi.ErrNotHolder},
	{usecase.ErrCredentialValue, hubapi.ErrCredentialValue},
	{usecase.ErrStampNotStored, hubapi.ErrStampNotStored},
	{usecase.ErrNotThisGeneration, hubapi.ErrNotThisGeneration},
	{usecase.ErrRestoreUnfinished, hubapi.ErrRestoreUnfinished},
	{usecase.ErrOtherProject, hubapi.ErrOtherProject},
	{usecase.ErrArtifactChanged, hubapi.ErrArtifactChanged},
	{store.ErrNotFound, hubapi.ErrNoRecord},
	{store.ErrConflict, hubapi.ErrConflict},
	{store.ErrClosed, hubapi.ErrShuttingDown},
	{store.ErrRecordDamaged, hubapi.ErrRecordDamaged},
	{store.ErrUnavailable, hubapi.ErrStoreUnavailable},
}

// twinned is a server error that is also each wire error whose server
// error it wraps, so that hubapi's table classifies it in the table's own
// order (when an error wraps several named errors the first row wins).
type twinned struct{ error }

func (t twinned) Is(target error) bool {
	for _, tw := range wireTwins {
		if tw.wire == target {
			return errors.Is(t.error, tw.server)
		}
	}
	return false
}

func (t twinned) Unwrap() error { return t.error }

// wireError is err as the API answers it: its named error's status and
// code (the use cases' and the store's through their wire twins), the
// error's own sentence.
func wireError(err error) *hubapi.APIError { return hubapi.FromError(twinned{err}) }
