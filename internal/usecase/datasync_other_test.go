//go:build !linux

package usecase

import (
	"os"
)

// datasync is what bbolt calls to sync its pages: fsync outside Linux.
func datasync(f *os.File) error { return f.Sync() }
