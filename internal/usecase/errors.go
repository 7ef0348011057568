package usecase

import "errors"

// ErrNoStamp: the persona generation has no capability stamp recorded.
var ErrNoStamp = errors.New("persona generation has no capability stamp")

// ErrNotHolder: the persona generation no longer holds its seat (it was
// retired or refused): it sends, reads and acks nothing more.
var ErrNotHolder = errors.New("persona generation does not hold its seat")
