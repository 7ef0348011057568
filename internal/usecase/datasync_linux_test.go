//go:build linux

package usecase

import (
	"os"
	"syscall"
	"time"
)

// datasync is what bbolt calls to sync its data and meta pages on Linux.
func datasync(f *os.File) error { return syscall.Fdatasync(int(f.Fd())) }

// processCPU is the process's user and system CPU time so far: a
// benchmark's CPU per operation, which a loaded machine disturbs less than
// its wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
