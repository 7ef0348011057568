package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"syscall"
)

// HeapProfileEnv names a file to which `serve` writes a heap profile (the
// pprof format `go tool pprof` reads) each time it receives SIGUSR1, after
// a collection, so it shows what is live: VIRGO_HEAP_PROFILE=/tmp/hub.pprof
// virgo-tui serve, then kill -USR1 <pid>. Unset, serve does not catch
// SIGUSR1 (and the signal ends it, as it ends any program). A signal
// reaches only processes of the same user, so this opens nothing to
// personas: no port, no file the hub did not already own.
const HeapProfileEnv = "VIRGO_HEAP_PROFILE"

// writeHeapProfilesOnSignal writes a heap profile to the file
// HeapProfileEnv names on each SIGUSR1 until ctx ends; without the
// variable it does nothing.
func writeHeapProfilesOnSignal(ctx context.Context, log *slog.Logger) {
	path := os.Getenv(HeapProfileEnv)
	if path == "" {
		return
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR1)
	go func() {
		defer signal.Stop(sig)
		for {
			select {
			case <-ctx.Done():
				return
			case <-sig:
				if err := writeHeapProfile(path); err != nil {
					log.Error("heap profile not written", "err", err)
					continue
				}
				log.Info("heap profile written", "file", path)
			}
		}
	}()
}

// writeHeapProfile collects garbage and writes the heap profile to path
// (0600: it names the hub's code, not its data, but is the operator's).
func writeHeapProfile(path string) error {
	runtime.GC()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("write the heap profile (%s): %w", HeapProfileEnv, err)
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("write the heap profile to %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write the heap profile to %s: %w", path, err)
	}
	return nil
}
