//go:build unix

package boltstore

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// errWouldBlock: the lock is held by a writer past the timeout.
var errWouldBlock = errors.New("lock held")

// lockShared takes the same shared lock a read-only bbolt opener takes, so
// that precheck never reads a file while a writer changes it; it is released
// when f is closed. Like bbolt it polls until timeout.
func lockShared(f *os.File, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return err
		}
		if time.Now().After(deadline) {
			return errWouldBlock
		}
		time.Sleep(50 * time.Millisecond)
	}
}
