package usecase

import "errors"

// Named errors of the use cases. The API's error table gives each its code.
var (
	// ErrNoStamp: the persona generation has no capability stamp recorded.
	ErrNoStamp = errors.New("persona generation has no capability stamp")
	// ErrNotHolder: the persona generation no longer holds its seat (it was
	// retired or refused): it sends, reads and acks nothing more.
	ErrNotHolder = errors.New("persona generation does not hold its seat")
	// ErrPersonaRequired: an operator's request that does not name its persona.
	ErrPersonaRequired = errors.New("the request must name a persona")
	// ErrInvalidOperation: an operation (tool, target, shape) the handler cannot read.
	ErrInvalidOperation = errors.New("invalid operation")
	// ErrNotActive: the persona generation is not active (pending or refused).
	ErrNotActive = errors.New("persona generation is not active")
	// ErrForbidden: the caller's identity may not do this.
	ErrForbidden = errors.New("forbidden")
)
