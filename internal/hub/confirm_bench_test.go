package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/procmem"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
)

// BenchmarkConfirmationRequests64: 64 concurrent callers ask for
// confirmations (a deputy's run outside its assigned task, each its own
// correlation id, so each is a committed new confirmation for the owning
// lead). "in-process" serves each request with the hub's handler without a
// socket; "socket" sends it with 64 hub clients over the home's socket, and
// reports its rate as a share of the in-process rate of the same run. Both
// start from the same state, a copy of one home that has already queued
// confirmationsBefore (what a request writes grows with what is stored: a
// path that ran second on the first one's leftovers measured more pages a
// request than its baseline). Both report the store's page writes per
// request, its transactions per commit, and the process's CPU time per
// request (hub and callers together: at 2 cores, 5,000 requests/s leaves at
// most 400 cpu-µs for each), and its user share; and what held the rate:
// the committer's busy share (commit-busy), bbolt's write-and-sync share
// of the run (write-busy), and the mean wait of a ready goroutine for a CPU
// (runnable-wait-µs).
// Goal: the socket at ≥ 60 % of the in-process rate. (≥ 5,000 requests/s
// through the socket was withdrawn: bbolt's one committer on this disk
// cannot commit that many, in-process or not.)
func BenchmarkConfirmationRequests64(b *testing.B) {
	// Every request leaves a confirmation pending: this measures request
	// throughput, not the flood guard, so the pending limits are lifted
	// for the run (TestPendingConfirmationsPerPersonaAreBounded tests them).
	defer liftLimit("pending_per_persona")()
	defer liftLimit("pending_per_authority")()
	base := queuedHome(b)
	var seq atomic.Int64
	next := func() hubapi.OperationRequest {
		n := seq.Add(1)
		return hubapi.OperationRequest{Tool: "get_run", Target: fmt.Sprintf("run:work/core/t-9/r-%d", n), Shape: "read:meta",
			CorrelationID: fmt.Sprintf("bench-%d", n)}
	}
	// rate runs b.N requests from 64 goroutines; ask(i, req) is caller i's.
	// Beside the rate it reports the pages the store wrote per request and
	// the transactions per commit: what the disk was asked to do, which the
	// machine's load does not change.
	rate := func(b *testing.B, th *testHub, ask func(i int, req hubapi.OperationRequest) error) float64 {
		bolt := th.hub.st.(*boltstore.Store)
		before, err := bolt.Stats()
		mustNil(b, err)
		b.ReportAllocs()
		b.ResetTimer()
		start, cpu, user := time.Now(), procmem.CPUTime(), procmem.UserTime()
		waited, waits := procmem.RunnableWait()
		mustNil(b, concurrently(callers, b.N, func(i, _ int) error { return ask(i, next()) }))
		wall := time.Since(start)
		r := float64(b.N) / wall.Seconds()
		b.ReportMetric(r, "requests/s")
		b.ReportMetric(float64(procmem.CPUTime()-cpu)/float64(b.N)/1e3, "cpu-µs/request")
		b.ReportMetric(float64(procmem.UserTime()-user)/float64(b.N)/1e3, "user-µs/request")
		after, err := bolt.Stats()
		mustNil(b, err)
		b.ReportMetric(float64(after.PageWrites-before.PageWrites)/float64(b.N), "pages/request")
		b.ReportMetric(float64(after.Txns-before.Txns)/float64(max(1, after.Commits-before.Commits)), "txns/commit")
		// What held the rate: the share of the run the one committer was
		// busy, the share of it bbolt spent writing and syncing, and how
		// long a goroutine made ready waited for a CPU.
		b.ReportMetric(float64(after.CommitTime-before.CommitTime)/float64(wall), "commit-busy")
		b.ReportMetric(float64(after.WriteTime-before.WriteTime)/float64(wall), "write-busy")
		waited1, waits1 := procmem.RunnableWait()
		b.ReportMetric(float64(waited1-waited)/float64(max(1, waits1-waits))/1e3, "runnable-wait-µs")
		return r
	}
	var inProcess float64
	b.Run("in-process", func(b *testing.B) {
		th := base.serve(b)
		ask := inProcessAsk(th, base.bearer)
		inProcess = rate(b, th, func(_ int, req hubapi.OperationRequest) error { return ask(req) })
	})
	b.Run("socket", func(b *testing.B) {
		th := base.serve(b)
		clients := make([]*hubclient.Client, callers)
		for i := range clients {
			clients[i] = th.runtime(b, base.deputy)
		}
		r := rate(b, th, func(i int, req hubapi.OperationRequest) error {
			_, err := clients[i].RequestConfirmation(context.Background(), req)
			return err
		})
		if inProcess > 0 {
			b.ReportMetric(100*r/inProcess, "%-of-in-process")
		}
	})
}

// callers is how many concurrent callers BenchmarkConfirmationRequests64
// runs, and confirmationsBefore how many confirmations its home has
// queued before either path is measured.
const (
	callers             = 64
	confirmationsBefore = 20_000
)

// queued is the home BenchmarkConfirmationRequests64 starts from: a lead
// and its deputy, and confirmationsBefore confirmations the deputy asked
// for, pending.
type queued struct {
	home   registry.Home
	deputy registry.Persona
	bearer string // the deputy's Authorization header
}

// queuedHome makes the home once for the run; its hub is stopped, so the
// home can be copied.
func queuedHome(b *testing.B) queued {
	b.Helper()
	// The expiry sweep reads every pending confirmation each ExpirySweep:
	// left out here as in the measured runs (serve).
	th := startHub(b, shortHome(b), Config{ExpirySweep: time.Hour}, Timeouts{})
	th.addPersona(b, "work/core/lead", "Spica")
	q := queued{home: th.home, deputy: th.addPersona(b, "work/core/deputy", "Zaniah")}
	tok, err := os.ReadFile(th.home.GenerationDir(q.deputy.ID) + "/" + hubapi.TokenFile)
	mustNil(b, err)
	q.bearer = "Bearer " + strings.TrimSpace(string(tok))
	ask := inProcessAsk(th, q.bearer)
	mustNil(b, concurrently(callers, confirmationsBefore, func(_, _ int) error {
		n := rand.Uint64()
		return ask(hubapi.OperationRequest{Tool: "get_run", Target: fmt.Sprintf("run:work/core/t-9/before-%x", n), Shape: "read:meta",
			CorrelationID: fmt.Sprintf("before-%x", n)})
	}))
	th.stop()
	return q
}

// serve starts a hub on a copy of the queued home, in its steady state:
// the expiry sweep is left out of the run (its cost per request would grow
// with the run's wall time, twice as long under load, twice the sweeps; a
// request does not wait on it), and the first idempotency sweep (a minute
// after a start) has found no record of the former key layout, so a
// request's key is looked up once, not under both layouts.
func (q queued) serve(b *testing.B) *testHub {
	b.Helper()
	home := shortHome(b)
	mustNil(b, copyHome(home.Dir, q.home.Dir))
	th := startHub(b, home, Config{ExpirySweep: time.Hour}, Timeouts{})
	_, err := th.hub.cases.SweepIdempotency(context.Background())
	mustNil(b, err)
	return th
}

// copyHome copies the home src into dst with the modes of its files and
// directories (os.CopyFS leaves them to the umask, and a hub refuses a home
// whose paths others may use).
func copyHome(dst, src string) error {
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		return err
	}
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		return os.Chmod(filepath.Join(dst, rel), info.Mode().Perm())
	})
}

// inProcessAsk asks th's handler for a confirmation as the holder of
// bearer, without a socket, with an idempotency key as the hub client's.
func inProcessAsk(th *testHub, bearer string) func(hubapi.OperationRequest) error {
	handler := th.hub.Handler()
	return func(req hubapi.OperationRequest) error {
		body, err := json.Marshal(req)
		if err != nil {
			return err
		}
		r := httptest.NewRequestWithContext(context.Background(), "POST", "/v1/confirmations", bytes.NewReader(body))
		r.Header.Set("Authorization", bearer)
		r.Header.Set("Content-Type", "application/json")
		// As the hub client sends every write: the hub records the result
		// under the key, so both paths write the same.
		r.Header.Set(hubapi.IdempotencyHeader, hubclient.NewIdempotencyKey())
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			return fmt.Errorf("in-process request: %d %s", w.Code, w.Body)
		}
		return nil
	}
}

// liftLimit raises a limit of hubapi.Limits out of reach until the returned
// function puts it back.
func liftLimit(name string) (restore func()) {
	for i := range hubapi.Limits {
		if l := &hubapi.Limits[i]; l.Name == name {
			old := l.Max
			l.Max = math.MaxInt32
			return func() { l.Max = old }
		}
	}
	panic("no limit " + name)
}
