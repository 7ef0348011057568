package usecase

import "errors"

// ErrNoStamp: the persona generation has no capability stamp recorded.
var ErrNoStamp = errors.New("persona generation has no capability stamp")
