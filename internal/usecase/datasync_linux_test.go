//go:build linux

package usecase

import (
	"os"
	"syscall"
)

// datasync is what bbolt calls to sync its data and meta pages on Linux.
func datasync(f *os.File) error { return syscall.Fdatasync(int(f.Fd())) }
