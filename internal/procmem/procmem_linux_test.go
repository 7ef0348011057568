package procmem

import (
	"errors"
	"os"
	"runtime"
	"testing"
)

// sink keeps the allocation of TestAnonKiBCountsTheHeap alive.
var sink []byte

// TestAnonKiBCountsTheHeap touches 64 MiB of fresh heap: this process's
// anonymous resident memory grows by at least most of it. A file mapping
// would not count (it is RssFile), so AnonKiB is what the process holds.
func TestAnonKiBCountsTheHeap(t *testing.T) {
	const size = 64 << 20
	before, err := AnonKiB(os.Getpid())
	if err != nil || before <= 0 {
		t.Fatalf("AnonKiB of this process = %d KiB, %v; want more than 0", before, err)
	}
	sink = make([]byte, size)
	for i := 0; i < size; i += os.Getpagesize() {
		sink[i] = 1
	}
	after, err := AnonKiB(os.Getpid())
	runtime.KeepAlive(sink)
	if err != nil || after-before < size>>10*3/4 {
		t.Fatalf("AnonKiB after touching %d KiB of heap grew by %d KiB (%v); want at least three quarters of it", size>>10, after-before, err)
	}
	sink = nil
}

func TestAnonKiBOfNoProcessIsErrStatus(t *testing.T) {
	if _, err := AnonKiB(-1); !errors.Is(err, ErrStatus) {
		t.Fatalf("AnonKiB of pid -1: %v; want ErrStatus", err)
	}
}
