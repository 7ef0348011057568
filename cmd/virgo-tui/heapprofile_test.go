package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// With $VIRGO_HEAP_PROFILE set, serve writes a heap profile (gzip-compressed
// pprof) to that file on SIGUSR1, owner-only, as often as it is asked.
func TestHeapProfileIsWrittenOnSIGUSR1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hub.pprof")
	t.Setenv(HeapProfileEnv, path)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	writeHeapProfilesOnSignal(ctx, slog.New(slog.DiscardHandler))
	for range 2 {
		os.Remove(path)
		if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
			t.Fatal(err)
		}
		var b []byte
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if b, _ = os.ReadFile(path); len(b) > 0 {
				break
			}
		}
		if !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
			t.Fatalf("no gzip-compressed profile in %s after SIGUSR1: %d bytes", path, len(b))
		}
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("profile file mode %v, %v; want 0600", fi.Mode().Perm(), err)
		}
	}
}
