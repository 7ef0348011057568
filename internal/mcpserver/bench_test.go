package mcpserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/virgo-hub/virgo-tui/internal/hub"
	"github.com/virgo-hub/virgo-tui/internal/procmem"
)

// pipeSession serves r over a pair of OS pipes — the byte streams and
// line framing of stdio — to an SDK client, and returns the client's
// session. The client speaks the protocol version the agents' clients
// speak (the TypeScript SDK, and Claude Code with it: 2025-11-25): the Go
// SDK's own default, 2026-07-28, sends its client's info and capabilities
// in every call's _meta, which the SDK's server decodes again on every
// call.
func pipeSession(b testing.TB, r *Runtime) *mcp.ClientSession {
	b.Helper()
	sr, cw, err := os.Pipe() // client → server
	if err != nil {
		b.Fatal(err)
	}
	cr, sw, err := os.Pipe() // server → client
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.ServeStdio(ctx, &mcp.IOTransport{Reader: sr, Writer: sw}) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: cr, Writer: cw}, &mcp.ClientSessionOptions{ProtocolVersion: agentProtocol})
	if err != nil {
		cancel()
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close(); cancel(); <-done })
	return cs
}

// agentProtocol is the MCP protocol version of the TypeScript SDK
// e2e/mcpclient pins (its LATEST_PROTOCOL_VERSION).
const agentProtocol = "2025-11-25"

// page4KiB is a 4 KiB text file, as a persona's notes are: lines of
// Markdown (JSON carries it with few escapes, as it would a real note).
var page4KiB = []byte(strings.Repeat("- [ ] review the deploy notes for work/core and report back\n", 4096/60+1)[:4096])

// reportPercentiles reports the p50 and p99 of ds.
func reportPercentiles(b *testing.B, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(ds[len(ds)*99/100].Nanoseconds()), "p99-ns")
}

// "an allowed workspace_read of 4 KiB through MCP stdio → hub →
// file, p50/p99 over 10,000 calls, against os.ReadFile of the same file".
// Run with -benchtime=10000x.
func BenchmarkWorkspaceRead4KiB(b *testing.B) {
	f := newFixture(b)
	p := f.persona(b, "work/core/lead", "Spica")
	r := f.runtime(b, p, Options{})
	path := filepath.Join(r.Workspace().Dir(), "memory", "page.md")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, page4KiB, 0o600); err != nil {
		b.Fatal(err)
	}

	b.Run("os.ReadFile", func(b *testing.B) {
		ds := make([]time.Duration, 0, b.N)
		b.ReportAllocs()
		for b.Loop() {
			t0 := time.Now()
			if data, err := os.ReadFile(path); err != nil || len(data) != 4096 {
				b.Fatal(len(data), err)
			}
			ds = append(ds, time.Since(t0))
		}
		reportPercentiles(b, ds)
	})

	b.Run("mcp-stdio-hub-file", func(b *testing.B) {
		cs := pipeSession(b, r)
		params := &mcp.CallToolParams{Name: "workspace_read", Arguments: map[string]any{"path": "memory/page.md", "length": 4096}}
		ds := make([]time.Duration, 0, b.N)
		b.ReportAllocs()
		cpu := procmem.CPUTime()
		for b.Loop() {
			t0 := time.Now()
			res, err := cs.CallTool(context.Background(), params)
			if err != nil || res.IsError {
				b.Fatalf("%v %s", err, text(res))
			}
			ds = append(ds, time.Since(t0))
		}
		b.ReportMetric(float64(procmem.CPUTime()-cpu)/float64(b.N), "cpu-ns/op")
		reportPercentiles(b, ds)
	})
}

// "100 concurrent MCP sessions of different personas (report
// calls/s and p99)". Each session of its own persona (its own token, stamp
// and workspace) reads a 4 KiB file as fast as it can.
func BenchmarkConcurrentSessions100(b *testing.B) {
	const personas = 100
	// The 100 MCP servers are 100 processes in production, each far
	// under the hub's per-process connection limit; here one process
	// holds all their connections (two each: calls and the beat stream).
	f := newFixtureWith(b, hub.Config{MaxConnectionsPerProcess: 4 * personas})
	sessions := make([]*mcp.ClientSession, personas)
	for i := range personas {
		p := f.persona(b, fmt.Sprintf("work/p%03d/lead", i), fmt.Sprintf("Bench %03d", i))
		r := f.runtime(b, p, Options{})
		if err := os.WriteFile(filepath.Join(r.Workspace().Dir(), "QUEUE.md"), page4KiB, 0o600); err != nil {
			b.Fatal(err)
		}
		sessions[i] = pipeSession(b, r)
	}
	params := &mcp.CallToolParams{Name: "workspace_read", Arguments: map[string]any{"path": "QUEUE.md"}}
	var mu sync.Mutex
	all := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	start, cpu := time.Now(), procmem.CPUTime()
	var wg sync.WaitGroup
	for i, cs := range sessions {
		n := b.N / personas
		if i < b.N%personas {
			n++
		}
		wg.Go(func() {
			ds := make([]time.Duration, 0, n)
			for range n {
				t0 := time.Now()
				res, err := cs.CallTool(context.Background(), params)
				if err != nil || res.IsError {
					b.Errorf("%v %s", err, text(res))
					return
				}
				ds = append(ds, time.Since(t0))
			}
			mu.Lock()
			all = append(all, ds...)
			mu.Unlock()
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "calls/s")
	b.ReportMetric(float64(procmem.CPUTime()-cpu)/float64(len(all)), "cpu-ns/call")
	reportPercentiles(b, all)
}
