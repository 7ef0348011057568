//go:build unix

package store

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// mapFile maps a file read-only for precheck, so that checking every page of
// a large database costs no copy.
func mapFile(f *os.File, size int64) (data []byte, unmap func(), err error) {
	data, err = syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return data, func() { syscall.Munmap(data) }, nil
}

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
