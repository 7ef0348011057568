//go:build !linux

package usecase

import (
	"os"
	"time"
)

// datasync is what bbolt calls to sync its pages: fsync outside Linux.
func datasync(f *os.File) error { return f.Sync() }

// processCPU is not measured here: benchmarks report 0 CPU per operation.
func processCPU() time.Duration { return 0 }
