package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/procmem"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/registry/roster"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
	"github.com/virgo-hub/virgo-tui/internal/usecase/usecasetest"
)

// throughRegistry registers a generation straight through the registry: no
// stamp, no activation confirmation — for a running hub's own registry.
func throughRegistry(reg *roster.Registry) func(registry.Registration) (registry.Persona, error) {
	return func(r registry.Registration) (registry.Persona, error) {
		return reg.Register(context.Background(), r)
	}
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
	ps := usecasetest.RegisterMany(b, runtimes, throughRegistry(th.hub.Registry()))
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

// BenchmarkHubMemory10000Personas: the memory of a real `virgo-tui serve`
// process (the binary built from this checkout) serving 10,000 active
// persona generations, after each one's runtime has connected with its
// token and reported an activity and a summary over the socket, and the
// hub has published and flushed them. rss-anon-MB is the process's
// anonymous resident memory (RssAnon in /proc/PID/status: the Go heap, its
// headroom, stacks, the runtime), what the hub itself holds; the
// file-backed rest (the binary, the database's map) is the kernel's page
// cache, shared and let go of under pressure. heap-MB is the live heap
// after the last collection (GODEBUG=gctrace=1); db-MB the database file's
// size once the hub stopped. Every MB here is a MiB (2^20 bytes), as /proc
// and gctrace count. Goals: anonymous RSS < 100 MB, database < 50 MB.
func BenchmarkHubMemory10000Personas(b *testing.B) {
	bin := serveBinary(b)
	fixture := shortHome(b)
	ps := usecasetest.StampedHome(b, fixture, 10_000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, full := measureServe(b, bin, fixture, ps)
		b.ReportMetric(full.heap, "full-heap-MB")
		b.ReportMetric(full.anon, "full-rss-anon-MB")
		b.ReportMetric(m.heap, "heap-MB")
		b.ReportMetric(m.anon, "rss-anon-MB")
		reportUsage(b, fixture.DBPath(), len(ps)) // db-MB and what the pages hold, once the hub stopped
	}
}

// serveBinEnv names a virgo-tui binary for BenchmarkHubMemory10000Personas
// to measure instead of building this checkout's (a build of another
// commit, to compare in one run).
const serveBinEnv = "VIRGO_BENCH_SERVE_BIN"

// serveBinary builds the virgo-tui binary of this checkout for a
// benchmark, unless serveBinEnv names one.
func serveBinary(b *testing.B) string {
	b.Helper()
	if bin := os.Getenv(serveBinEnv); bin != "" {
		return bin
	}
	bin := filepath.Join(b.TempDir(), "virgo-tui")
	build := exec.Command("go", "build", "-o", bin, "github.com/virgo-hub/virgo-tui/cmd/virgo-tui")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// serveMemory is what measureServe read of a serving hub's process, in MiB.
type serveMemory struct{ heap, anon float64 }

// liveHeap finds the live heap after a collection in a gctrace line
// ("gc 12 @3.1s 0%: …, 43->44->22 MB, 46 MB goal, …").
var liveHeap = regexp.MustCompile(`\d+->\d+->(\d+) MB`)

// eachPersona runs fn on every persona of ps from workers goroutines, and
// fails tb with the first error fn returned, once all are done.
func eachPersona(tb testing.TB, ps []registry.Persona, workers int, fn func(registry.Persona) error) {
	tb.Helper()
	if err := concurrently(workers, len(ps), func(_, k int) error { return fn(ps[k]) }); err != nil {
		tb.Fatal(err)
	}
}

// concurrently makes n calls of fn from workers goroutines: fn(w, k) is
// the k-th call, made by worker w. It returns the first error a call
// returned, once all are done; a worker whose call failed makes no more.
func concurrently(workers, n int, fn func(worker, k int) error) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	var first sync.Once
	var failed error
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := int(next.Add(1)) - 1; k < n; k = int(next.Add(1)) - 1 {
				if err := fn(w, k); err != nil {
					first.Do(func() { failed = err })
					return
				}
			}
		}()
	}
	wg.Wait()
	return failed
}

// measureServe runs `bin serve` on home, has the runtime of each
// generation of ps report an activity and a summary, reads the process's
// memory once the hub has checked every stamp (StartChecked: its start is
// over) and published and flushed the reports (afterReports), and
// again once its change stream holds all it keeps (ringFull, fillStream),
// and stops it; each generation must then have its activity stored.
func measureServe(b *testing.B, bin string, home registry.Home, ps []registry.Persona) (afterReports, ringFull serveMemory) {
	b.Helper()
	cmd := exec.Command(bin, "serve", "--home", home.Dir)
	cmd.Env = append(os.Environ(), "GODEBUG=gctrace=1")
	log := newServeLog()
	cmd.Stderr = log
	mustNil(b, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	select {
	case <-log.ready:
	case <-time.After(2 * time.Minute):
		b.Fatal("virgo-tui serve did not start in 2 minutes")
	}

	eachPersona(b, ps, 16, func(p registry.Persona) error { return reportOnce(home, p) })
	// The start is over once the hub has checked every stamp
	// (StartChecked): the steady state is after it.
	select {
	case <-log.checked:
	case <-time.After(3 * time.Minute):
		b.Fatal("virgo-tui serve did not log " + StartChecked + " in 3 minutes")
	}
	// The hub publishes presence within its coalescing window and writes
	// it within a second (FlushEvery); its memory is read after both.
	time.Sleep(2 * time.Second)
	read := func() serveMemory {
		var m serveMemory
		kib, err := procmem.AnonKiB(cmd.Process.Pid)
		mustNil(b, err)
		m.anon = float64(kib) / 1024
		m.heap = log.liveHeap()
		return m
	}
	m := read()
	fillStream(b, home, ps[:100])
	time.Sleep(2 * time.Second)
	full := read()
	mustNil(b, cmd.Process.Signal(syscall.SIGTERM))
	mustNil(b, cmd.Wait())
	st, err := boltstore.Open(home.DBPath(), boltstore.Options{})
	mustNil(b, err)
	defer st.Close()
	kvs, err := st.List(context.Background(), presencePrefix)
	mustNil(b, err)
	stored := 0
	for _, kv := range kvs {
		if bytes.Contains(kv.Value, []byte(`"activity":"working on task `)) {
			stored++
		}
	}
	if stored != len(ps) {
		b.Fatalf("%d of %d presence records hold the activity reported", stored, len(ps))
	}
	return m, full
}

// fillStream has the runtimes of ps beat over beat streams until the hub's
// change stream has published 70,000 changes, more than its ring keeps: the
// hub then holds as many changes as it ever does, as it does once 10,000
// runtimes have each beaten a few times (one presence change a beat).
func fillStream(b *testing.B, home registry.Home, ps []registry.Persona) {
	b.Helper()
	const changes = 70_000
	enrol(b, home.Dir, "bench")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	op, err := hubclient.Dial(ctx, home.Dir, hubclient.AsOperator("bench"))
	mustNil(b, err)
	defer op.Close()
	beating, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var failed atomic.Value
	for _, p := range ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := hubclient.Dial(ctx, home.Dir, hubclient.WithTokenFile(filepath.Join(home.GenerationDir(p.ID), hubapi.TokenFile)))
			if err != nil {
				failed.Store(err)
				return
			}
			defer c.Close()
			s, err := c.OpenBeatStream(ctx)
			if err != nil {
				failed.Store(err)
				return
			}
			for beating.Err() == nil {
				if err := s.Beat(); err != nil {
					failed.Store(err)
					break
				}
				time.Sleep(time.Millisecond)
			}
			if _, err := s.Close(); err != nil {
				failed.Store(err)
			}
		}()
	}
	for {
		snap, err := op.Snapshot(ctx)
		if err != nil || snap.Seq >= changes {
			stop()
			wg.Wait()
			mustNil(b, err)
			break
		}
		time.Sleep(time.Second)
	}
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
}

// serveLog reads a serving hub's standard error: it says when the hub
// serves, and (with GODEBUG=gctrace=1) the live heap after each collection.
type serveLog struct {
	ready   chan struct{} // closed at the "hub serving" line
	checked chan struct{} // closed at the StartChecked line

	mu      sync.Mutex
	partial []byte  // a line not yet ended
	heapMB  float64 // the last collection's live heap, MiB
	serving bool
	done    bool // the StartChecked line was seen
}

// newServeLog returns a serveLog waiting for its lines.
func newServeLog() *serveLog {
	return &serveLog{ready: make(chan struct{}), checked: make(chan struct{})}
}

func (l *serveLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(l.partial[:i])
		l.partial = l.partial[i+1:]
		if strings.HasPrefix(line, "hub serving ") && !l.serving {
			l.serving = true
			close(l.ready)
		}
		if strings.Contains(line, `msg="`+StartChecked+`"`) && !l.done {
			l.done = true
			close(l.checked)
		}
		if m := liveHeap.FindStringSubmatch(line); m != nil {
			mb, _ := strconv.ParseFloat(m[1], 64)
			l.heapMB = mb // gctrace's MB are MiB
		}
	}
}

func (l *serveLog) liveHeap() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.heapMB
}

// reportOnce is a runtime's visit: it connects with its generation's token
// and reports an activity and a summary.
func reportOnce(home registry.Home, p registry.Persona) error {
	ctx := context.Background()
	c, err := hubclient.Dial(ctx, home.Dir, hubclient.WithTokenFile(filepath.Join(home.GenerationDir(p.ID), hubapi.TokenFile)))
	if err != nil {
		return err
	}
	defer c.Close()
	activity, summary := "working on task "+p.ID, "summary of "+p.Address
	_, err = c.SetPresence(ctx, &activity, &summary)
	return err
}
