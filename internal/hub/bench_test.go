package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// registerMany registers n active generations straight through the
// registry, from many goroutines so the store's group commit batches them.
func registerMany(tb testing.TB, reg *registry.Registry, n int) []registry.Persona {
	tb.Helper()
	out := make([]registry.Persona, n)
	var wg sync.WaitGroup
	var failed atomic.Value
	work := make(chan int)
	for w := 0; w < 64; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				role := "lead"
				if i%2 == 1 {
					role = "deputy"
				}
				p, err := reg.Register(context.Background(), registry.Registration{
					Address: fmt.Sprintf("s%d/core/%s", i/2, role), Name: fmt.Sprintf("Bench %d", i), Human: "human:henry"})
				if err != nil {
					failed.Store(err)
					continue
				}
				out[i] = p
			}
		}()
	}
	for i := 0; i < n; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		tb.Fatal(err)
	}
	return out
}

// BenchmarkHeartbeats: 100 persona runtimes beat over the socket as fast as
// they can while an operator's console follows the stream. Reports
// sustained heartbeats per second and the p99 time from sending a beat to
// the subscriber seeing a presence change that includes it. "request": one
// POST /v1/presence/beat per beat on a keep-alive connection; "stream": the
// keep-alive beat path, one line per beat on one long request. "max" runs
// flat out (throughput; latency then includes the queue the load builds);
// "20k" paces the 100 runtimes at 200 beats/s each, the goal's sustained
// 20,000/s, where the latency goal applies.
func BenchmarkHeartbeats(b *testing.B) {
	perRequest := func(ctx context.Context, c *hubclient.Client) (func() error, func() error) {
		return func() error { _, err := c.Beat(ctx); return err }, func() error { return nil }
	}
	streamed := func(ctx context.Context, c *hubclient.Client) (func() error, func() error) {
		s, err := c.OpenBeatStream(ctx)
		if err != nil {
			return func() error { return err }, func() error { return err }
		}
		return s.Beat, func() error { _, err := s.Close(); return err }
	}
	b.Run("request/max", func(b *testing.B) { benchHeartbeats(b, perRequest, 0) })
	b.Run("request/20k", func(b *testing.B) { benchHeartbeats(b, perRequest, 200) })
	b.Run("stream/max", func(b *testing.B) { benchHeartbeats(b, streamed, 0) })
	b.Run("stream/20k", func(b *testing.B) { benchHeartbeats(b, streamed, 200) })
}

// beater returns a runtime's beat function and its closer.
type beater func(ctx context.Context, c *hubclient.Client) (beat, closeFn func() error)

// benchHeartbeats runs the load; rate is beats per second per runtime, 0
// for as fast as possible.
func benchHeartbeats(b *testing.B, open beater, rate int) {
	const runtimes = 100
	home := shortHome(b)
	th := startHub(b, home, Config{}, Timeouts{})
	ps := registerMany(b, th.hub.Registry(), runtimes)
	mustNil(b, th.hub.Settle(context.Background()))
	clients := make([]*hubclient.Client, runtimes)
	index := map[string]int{}
	for i, p := range ps {
		clients[i] = th.runtime(b, p)
		index[p.ID] = i
	}
	op := th.operator(b, "henry")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	snap, err := op.Snapshot(ctx)
	mustNil(b, err)
	sub := op.Subscribe(ctx, snap.Seq)

	per := b.N/runtimes + 1
	sent := make([][]atomic.Int64, runtimes) // send time of beat k of runtime i
	for i := range sent {
		sent[i] = make([]atomic.Int64, per)
	}
	total := per * runtimes
	var latencies []time.Duration
	seenAll := make(chan struct{})
	go func() {
		seen := make([]uint64, runtimes)
		var count int
		for batch := range sub {
			now := time.Now().UnixNano()
			for _, c := range batch {
				if c.Kind != hubapi.KindPresence {
					continue
				}
				var p hubapi.Presence
				if json.Unmarshal(c.Data, &p) != nil {
					continue
				}
				i, ok := index[p.ID]
				if !ok {
					continue
				}
				for k := seen[i]; k < p.Beats && k < uint64(per); k++ {
					if t := sent[i][k].Load(); t != 0 {
						latencies = append(latencies, time.Duration(now-t))
					}
					count++
				}
				seen[i] = max(seen[i], p.Beats)
			}
			if count >= total {
				close(seenAll)
				return
			}
		}
	}()

	b.ReportAllocs()
	b.ResetTimer()
	var wg sync.WaitGroup
	var errs atomic.Int64
	start := time.Now()
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			beat, closeFn := open(ctx, c)
			defer func() {
				if closeFn() != nil {
					errs.Add(1)
				}
			}()
			for k := 0; k < per; k++ {
				if rate > 0 {
					// spread the runtimes' beats evenly over each interval
					at := start.Add(time.Duration(k)*time.Second/time.Duration(rate) + time.Duration(i)*time.Second/time.Duration(rate*runtimes))
					time.Sleep(time.Until(at))
				}
				sent[i][k].Store(time.Now().UnixNano())
				if beat() != nil {
					errs.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := b.Elapsed()
	b.StopTimer()
	select {
	case <-seenAll:
	case <-time.After(10 * time.Second):
		b.Fatalf("the subscriber saw %d of %d beats", len(latencies), total)
	}
	if n := errs.Load(); n > 0 {
		b.Fatalf("%d beats failed", n)
	}
	slices.Sort(latencies)
	b.ReportMetric(float64(total)/elapsed.Seconds(), "beats/s")
	b.ReportMetric(float64(latencies[len(latencies)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(latencies[len(latencies)/2].Microseconds())/1000, "p50-ms")
}

// BenchmarkHubMemory10000Personas: a hub holding 10,000 active persona
// generations (registry records loaded, presence tracked, tokens issued),
// after every one has reported an activity and a summary, measured in a
// process of its own (TestHubMemoryProcess: the test binary run again), so
// that the fixture's own memory is not counted: heap-MB is the hub's heap
// in use, rss-MB the process's resident set then (the hub, the Go runtime
// and the database pages it touched), split into rss-anon-MB (the heap and
// the runtime) and rss-file-MB (the binary's text and the database's mapped
// pages), db-MB the database file's size once that presence is flushed. Goals (issue 11): RSS < 100 MB, database < 50 MB.
func BenchmarkHubMemory10000Personas(b *testing.B) {
	const n = 10_000
	home := shortHome(b)
	st, err := store.OpenBolt(home.DBPath(), store.Options{})
	mustNil(b, err)
	registerMany(b, registry.New(st, home), n)
	mustNil(b, st.Close())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHubMemoryProcess$")
		cmd.Env = append(os.Environ(), hubMemoryEnv+"="+home.Dir)
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		mustNil(b, err)
		var m hubMemory
		if err := json.Unmarshal(jsonLine(out), &m); err != nil {
			b.Fatalf("the hub's process answered %q: %v", out, err)
		}
		if m.Tracked != n {
			b.Fatalf("tracking %d, want %d", m.Tracked, n)
		}
		fi, err := os.Stat(home.DBPath())
		mustNil(b, err)
		b.ReportMetric(m.HeapMB, "heap-MB")
		b.ReportMetric(m.RSSMB, "rss-MB")
		b.ReportMetric(m.AnonMB, "rss-anon-MB")
		b.ReportMetric(m.FileMB, "rss-file-MB")
		b.ReportMetric(float64(fi.Size())/1e6, "db-MB")
	}
}

// hubMemoryEnv names the home TestHubMemoryProcess runs its hub on.
const hubMemoryEnv = "VIRGO_HUB_TEST_MEMORY"

// hubMemory is what TestHubMemoryProcess reports, as one JSON line.
type hubMemory struct {
	Tracked int     `json:"tracked"`
	HeapMB  float64 `json:"heap_mb"`
	RSSMB   float64 `json:"rss_mb"`
	AnonMB  float64 `json:"anon_mb"`
	FileMB  float64 `json:"file_mb"`
}

// TestHubMemoryProcess is not a test: BenchmarkHubMemory10000Personas runs
// the test binary again with it, to start a hub on a home and report its
// memory once every persona has reported an activity and a summary.
func TestHubMemoryProcess(t *testing.T) {
	dir := os.Getenv(hubMemoryEnv)
	if dir == "" {
		t.Skip("helper process for BenchmarkHubMemory10000Personas")
	}
	home := registry.Home{Dir: dir}
	st, err := store.OpenBolt(home.DBPath(), store.Options{})
	mustNil(t, err)
	defer st.Close()
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	h, err := New(context.Background(), Config{Home: home, Store: st})
	mustNil(t, err)
	for _, p := range h.presence.List() {
		mustNil(t, h.presence.SetActivity(p.ID, "working on task "+p.ID))
		mustNil(t, h.presence.SetSummary(p.ID, "summary of "+p.Address))
	}
	h.publishPresenceNow()
	mustNil(t, h.Flush(context.Background()))
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	rss, anon, file := residentMB(t)
	line, err := json.Marshal(hubMemory{Tracked: h.presence.Len(),
		HeapMB: float64(after.HeapInuse-before.HeapInuse) / (1 << 20), RSSMB: rss, AnonMB: anon, FileMB: file})
	mustNil(t, err)
	fmt.Printf("\n%s\n", line)
	runtime.KeepAlive(h)
}

// jsonLine is the line of out that is a JSON object (the test binary
// writes its own verdict after it).
func jsonLine(out []byte) []byte {
	for line := range bytes.Lines(out) {
		if bytes.HasPrefix(line, []byte("{")) {
			return line
		}
	}
	return out
}

// residentMB reads the process's resident set from /proc/self/status, in
// MiB: in all (VmRSS), anonymous (RssAnon: the heap, stacks, the runtime)
// and file-backed (RssFile: the binary's text and the database pages the
// hub's reads touched through bbolt's map, which the kernel may drop).
func residentMB(tb testing.TB) (rss, anon, file float64) {
	tb.Helper()
	b, err := os.ReadFile("/proc/self/status")
	mustNil(tb, err)
	for _, line := range strings.Split(string(b), "\n") {
		for _, f := range []struct {
			field string
			to    *float64
		}{{"VmRSS:", &rss}, {"RssAnon:", &anon}, {"RssFile:", &file}} {
			if kb, ok := strings.CutPrefix(line, f.field); ok {
				n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(kb), " kB"))
				mustNil(tb, err)
				*f.to = float64(n) / 1024
			}
		}
	}
	if rss == 0 {
		tb.Fatal("no VmRSS in /proc/self/status")
	}
	return rss, anon, file
}
