//go:build !unix

package boltstore

import (
	"errors"
	"os"
	"time"
)

// errWouldBlock: the lock is held by a writer past the timeout.
var errWouldBlock = errors.New("lock held")

// lockShared is left to bbolt's own open where package syscall has no flock.
func lockShared(*os.File, time.Duration) error { return nil }
