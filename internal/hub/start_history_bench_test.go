package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/confirm/queue"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/procmem"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/registry/roster"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
	"github.com/virgo-hub/virgo-tui/internal/usecase/usecasetest"
)

// decidedHistory stores n decided confirmations, as a long-running
// installation accumulates them: copies of one real approved
// confirmation under new ids, each with its fingerprint, correlation and
// audit records, written by 64 writers at once (a fixture, not a workload:
// their transactions share commits, which builds it in a fraction of the
// time one writer takes).
func decidedHistory(tb testing.TB, home registry.Home, n int) {
	tb.Helper()
	ctx := context.Background()
	s, err := boltstore.Open(home.DBPath(), boltstore.Options{})
	mustNil(tb, err)
	defer s.Close()
	reg := roster.New(s, home)
	q := queue.New(s, queue.Options{})
	cases := usecase.New(usecase.Config{Store: s, Registry: reg, Queue: q})
	res, err := cases.Register(ctx, usecase.Key{}, usecase.Registration{Registration: registry.Registration{Address: "hist/core/lead", Name: "History", Human: "human:henry"}})
	mustNil(tb, err)
	henry, err := confirm.ParsePrincipal("human:henry")
	mustNil(tb, err)
	decided, err := cases.Decide(ctx, usecase.Key{}, henry, res.Confirmation.ID, true, confirm.RememberNone, "")
	mustNil(tb, err)
	var ops []store.Op
	for i := range n {
		c := *decided
		c.ID = fmt.Sprintf("c-h%011d", i)
		c.CorrelationID = fmt.Sprintf("hist-%d", i)
		c.Fingerprint = fmt.Sprintf("hist%028d", i)
		b, err := json.Marshal(c)
		mustNil(tb, err)
		e, err := json.Marshal(confirm.AuditEntry{Time: c.CreatedAt, Event: "approved", ConfirmationID: c.ID, Actor: c.Requester})
		mustNil(tb, err)
		ops = append(ops, store.Put(queue.PrefixConfirmation+c.ID, b),
			store.Put("confirm/fp/"+c.Fingerprint, []byte(c.ID)),
			store.Put("confirm/corr/"+c.Requester.String()+"/"+c.CorrelationID, []byte(c.ID)),
			store.Put(fmt.Sprintf("%s%020d/%s/approved/h", queue.PrefixAudit, c.CreatedAt.UnixNano()+int64(i), c.ID), e))
	}
	// Independent writes within the store's transaction limits, from 64
	// writers so that group commit shares each sync among many of them.
	const writers = 64
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	per := (len(ops) + writers - 1) / writers
	for part := range slices.Chunk(ops, per) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := store.WriteAll(ctx, s, part); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		tb.Fatal(err)
	}
}

// issueTokens writes the token files of ps from 64 goroutines, so their
// syncs share the file system's journal commits; the hub's first start then
// finds them and only records their hashes (one at a time it spent most of
// the fixture's minutes issuing them).
func issueTokens(tb testing.TB, home registry.Home, ps []registry.Persona) {
	tb.Helper()
	eachPersona(tb, ps, 64, func(p registry.Persona) error {
		_, err := hubapi.ReadOrCreateToken(filepath.Join(home.GenerationDir(p.ID), hubapi.TokenFile))
		return err
	})
}

// BenchmarkHubStartWithHistory: a hub start, from opening the store to
// answering health (start-ms), over 10,000 active generations registered and
// activated as persona add leaves them (usecasetest.StampedHome) and 10,000 or
// 100,000 decided confirmations. The hub reads what is pending through its
// index, so what it reads (hub-new-ms: hub.New on an open store) should
// cost the same at both sizes; start-ms also includes the store's check of
// the whole file when it opens, which grows with the file. Goal: < 200 ms,
// flat as history grows. The first start on the home (token issuance) is
// not timed.
func BenchmarkHubStartWithHistory(b *testing.B) {
	for _, decided := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("personas=10k/decided=%dk", decided/1000), func(b *testing.B) {
			setup := time.Now()
			home := shortHome(b)
			issueTokens(b, home, usecasetest.StampedHome(b, home, 10_000))
			decidedHistory(b, home, decided)
			enrol(b, home.Dir, "henry")
			ctx := context.Background()
			// The process's CPU time of the starts (cpu-ms): what the wall
			// time is made of on a machine others keep busy.
			var cpu time.Duration
			start := func() time.Duration {
				t0, cpu0 := time.Now(), procmem.CPUTime()
				c, err := hubclient.Dial(ctx, home.Dir, hubclient.AsOperator("henry"), hubclient.WithStarter(InProcessOn(home, "")))
				mustNil(b, err)
				d := time.Since(t0)
				cpu += procmem.CPUTime() - cpu0
				mustNil(b, c.Close())
				return d
			}
			start()
			b.Logf("fixture and first start: %v", time.Since(setup).Round(time.Second))
			// What the hub reads at start, apart from the store's own
			// verification of the file when it opens: hub.New on an open
			// store (records, presence, token hashes, the undecided index).
			hubNew := func() time.Duration {
				st, err := boltstore.Open(home.DBPath(), boltstore.Options{})
				mustNil(b, err)
				defer st.Close()
				t0 := time.Now()
				h, err := New(ctx, Config{Home: home, Store: st})
				mustNil(b, err)
				d := time.Since(t0)
				// Its stat of the stamp files goes on after New; it must
				// not run into the next start's measurement.
				<-h.present
				return d
			}
			b.ReportAllocs()
			var total, inNew time.Duration
			cpu = 0
			for b.Loop() {
				total += start()
				b.StopTimer()
				inNew += hubNew()
				b.StartTimer()
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "start-ms")
			b.ReportMetric(float64(inNew.Microseconds())/1000/float64(b.N), "hub-new-ms")
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}
