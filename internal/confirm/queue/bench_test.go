package queue

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// pendingConfirmations queues n distinct confirmations, concurrently so the
// store's group commit batches the setup.
func pendingConfirmations(b *testing.B, q *Queue, p *confirm.Policy, n int) []string {
	b.Helper()
	ids := make([]string, n)
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	sem := make(chan struct{}, 64)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			o := op(b, p, "publish_deployment_v1", fmt.Sprintf("external:https://example.org/r/%d", i), stamp.ShapeDeploy)
			r, err := commitRequest(context.Background(), q, confirm.PersonaPrincipal(p.Address()), p, o, fmt.Sprintf("bench-%d", i))
			if err != nil {
				select {
				case errs <- err:
				default:
				}
				return
			}
			ids[i] = r.Confirmation.ID
		}()
	}
	wg.Wait()
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
	return ids
}

// A decision commit (read, CAS transaction with the record and its audit
// entry, fsync) against a bare fsync of a file in the same directory and a
// bare one-key store transaction, interleaved in one loop so that all three
// see the same machine. Reported per operation: the commit (ns/op), the
// fsync and the store transaction, and the commit/fsync ratio.
func BenchmarkDecisionCommitVsFsync(b *testing.B) {
	s, path := openStore(b)
	q := New(s, Options{})
	p := policyFor(b, "work/core/lead", confirm.Options{})
	ids := pendingConfirmations(b, q, p, b.N)
	f, err := os.Create(filepath.Join(filepath.Dir(path), "fsync-baseline"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	var commit, fsync, txn time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i, id := range ids {
		start := time.Now()
		if _, err := commitApprove(ctx, q, henry, id, confirm.RememberNone); err != nil {
			b.Fatal(err)
		}
		commit += time.Since(start)
		b.StopTimer()
		start = time.Now()
		if _, err := f.WriteAt([]byte{byte(i)}, 0); err != nil {
			b.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
		fsync += time.Since(start)
		start = time.Now()
		if _, err := s.Txn(ctx, nil, []store.Op{store.Put("bench/baseline", []byte{byte(i)})}); err != nil {
			b.Fatal(err)
		}
		txn += time.Since(start)
		b.StartTimer()
	}
	b.ReportMetric(float64(fsync.Nanoseconds())/float64(b.N), "fsync-ns/op")
	b.ReportMetric(float64(txn.Nanoseconds())/float64(b.N), "store-txn-ns/op")
	b.ReportMetric(float64(commit)/float64(fsync), "commit/fsync")
}

// Many concurrent deciders, batched by the store's group commit: decisions
// per second at 1, 8 and 64 callers.
func BenchmarkConcurrentDeciders(b *testing.B) {
	benchDeciders(b, func(b *testing.B) store.Store { s, _ := openStore(b); return s })
}

// benchDeciders approves pending confirmations with 1, 8 and 64 callers
// on the stores open makes.
func benchDeciders(b *testing.B, open func(*testing.B) store.Store) {
	for _, callers := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("callers=%d", callers), func(b *testing.B) {
			q := New(open(b), Options{})
			p := policyFor(b, "work/core/lead", confirm.Options{})
			ids := pendingConfirmations(b, q, p, b.N)
			work := make(chan string, len(ids))
			for _, id := range ids {
				work <- id
			}
			close(work)
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			var wg sync.WaitGroup
			for range callers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for id := range work {
						if _, err := commitApprove(context.Background(), q, henry, id, confirm.RememberNone); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "decisions/s")
		})
	}
}
