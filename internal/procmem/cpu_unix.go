//go:build unix

package procmem

import (
	"syscall"
	"time"
)

// CPUTime is this process's user and system CPU time so far (0 if the
// kernel does not say). The benchmarks report CPU time per op beside wall
// time: on a machine shared by several engineers, wall time includes the
// wait for a core, CPU time is the work done.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// UserTime is CPUTime without the kernel's share, which on a shared machine
// includes waiting out other processes' writes to the same disk in
// fdatasync and pwrite.
func UserTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano())
}
