package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hub"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/procmem"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/usecase/usecasetest"
)

// BenchmarkPersonaListJSON10k runs the whole `persona list --all -o json`
// command in-process over a home of 10,000 personas registered and activated
// as persona add leaves them (seed10k), as main runs it (its output
// through the terminal-safe writer, to io.Discard), the two ways a command
// reaches the installation: with no hub running, a one-shot read of the
// database itself (open, list, encode, close); and through a hub already
// running (dial, list over the socket). Goal < 100 ms. cpu-ms/op is the
// CPU time of the process per command — the hub's and the command's —
// which a loaded machine disturbs less than the wall time.
//
// A hub that has just started checks every active generation's stamp in
// the background (hub.StartChecked: about a millisecond of CPU each, so
// seconds for 10,000): hub-running lists once that check is done, the
// steady state; hub-just-started lists while it runs, sharing the CPU
// with it.
func BenchmarkPersonaListJSON10k(b *testing.B) {
	home := seed10k(b)
	args := []string{"--home", home, "--as", "human:bench", "persona", "list", "--all", "-o", "json"}
	run := func(b *testing.B) {
		// The first run checks the output and is not timed.
		var out bytes.Buffer
		root := newRootCmd()
		root.SetArgs(args)
		root.SetOut(&out)
		if err := root.Execute(); err != nil {
			b.Fatal(err)
		}
		if n := bytes.Count(out.Bytes(), []byte(`"id":`)); n != 10_000 {
			b.Fatalf("listed %d personas, want 10000", n)
		}
		b.ReportAllocs()
		cpu := procmem.CPUTime()
		for b.Loop() {
			root := newRootCmd()
			root.SetArgs(args)
			if code := execute(root, io.Discard, io.Discard); code != 0 {
				b.Fatalf("exit status %d", code)
			}
		}
		b.ReportMetric(float64(procmem.CPUTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
	}
	b.Run("no-hub", run)
	withHub := func(steady bool) func(b *testing.B) {
		return func(b *testing.B) {
			h, err := registry.CreateHome(home)
			if err != nil {
				b.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			ready, served := make(chan struct{}), make(chan error, 1)
			checked := &logSeen{msg: hub.StartChecked, seen: make(chan struct{})}
			go func() {
				served <- hub.Serve(ctx, hub.ServeOptions{Home: h, Log: slog.New(checked), Ready: func(*hub.Hub) { close(ready) }})
			}()
			select {
			case <-ready:
			case err := <-served:
				b.Fatal(err)
			}
			defer func() {
				cancel()
				if err := <-served; err != nil {
					b.Error(err)
				}
			}()
			if steady {
				select {
				case <-checked.seen:
				case <-time.After(3 * time.Minute):
					b.Fatal("the hub did not log " + hub.StartChecked + " in 3 minutes")
				}
			}
			run(b)
		}
	}
	b.Run("hub-running", withHub(true))
	b.Run("hub-just-started", withHub(false))
}

// logSeen is a log handler that closes seen once a record with message msg
// is logged, and drops every record.
type logSeen struct {
	msg  string
	seen chan struct{}
	once sync.Once
}

func (l *logSeen) Enabled(context.Context, slog.Level) bool { return true }

func (l *logSeen) Handle(_ context.Context, r slog.Record) error {
	if r.Message == l.msg {
		l.once.Do(func() { close(l.seen) })
	}
	return nil
}

func (l *logSeen) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logSeen) WithGroup(string) slog.Handler      { return l }

// seeded10k is the home seed10k built; the benchmark function runs more
// than once (b.N = 1 first) and seeding takes tens of seconds.
var seeded10k string

// seed10k registers 10,000 personas (5,000 projects, a lead and a deputy
// each) as persona add does, stamped and activated (usecasetest), and
// enrols the operator the command runs as, once per run.
func seed10k(b *testing.B) string {
	b.Helper()
	if seeded10k != "" {
		return seeded10k
	}
	dir, err := os.MkdirTemp("", "virgo-bench-")
	if err != nil {
		b.Fatal(err)
	}
	home, err := registry.CreateHome(dir)
	if err != nil {
		b.Fatal(err)
	}
	usecasetest.StampedHome(b, home, 10_000)
	// The command runs as human:bench, which the hub admits only enrolled.
	if _, err := hubapi.EnrolOperator(dir, "bench", hubapi.NoUID); err != nil {
		b.Fatal(err)
	}
	if fi, err := os.Stat(home.DBPath()); err == nil {
		b.Logf("10,000-persona database: %d bytes", fi.Size())
	}
	seeded10k = dir
	return dir
}

// TestMain removes the seeded benchmark home, which outlives one benchmark.
func TestMain(m *testing.M) {
	code := m.Run()
	if seeded10k != "" {
		os.RemoveAll(seeded10k)
	}
	os.Exit(code)
}
