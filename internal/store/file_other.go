//go:build !unix

package store

import (
	"errors"
	"io"
	"os"
	"time"
)

// mapFile reads the file whole where there is no mmap in package syscall.
func mapFile(f *os.File, size int64) (data []byte, unmap func(), err error) {
	data = make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, nil, err
	}
	return data, func() {}, nil
}

// errWouldBlock: the lock is held by a writer past the timeout.
var errWouldBlock = errors.New("lock held")

// lockShared is left to bbolt's own open where package syscall has no flock.
func lockShared(*os.File, time.Duration) error { return nil }
