//go:build unix

package store

import (
	"os"
	"syscall"
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
