//go:build !unix

package store

import (
	"io"
	"os"
)

// mapFile reads the file whole where there is no mmap in package syscall.
func mapFile(f *os.File, size int64) (data []byte, unmap func(), err error) {
	data = make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, nil, err
	}
	return data, func() {}, nil
}
