//go:build linux

package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// BenchmarkCommitFloor is where a one-key commit's cost comes from, all
// interleaved in one loop so that every part sees the same disk and load:
// a 4 KiB page overwritten and fdatasync'ed (the unit: what bbolt's sync is
// on Linux), two of them in a row (bbolt's floor: its data pages, then its
// meta page, each synced), a one-key commit of a bare bbolt file (bbolt's
// own cost, none of the store's), the store's one-key Txn (checksums,
// change log, counters, group commit), and a Txn of a decision's shape: five
// keys in five key ranges of a store holding 20,000 records (a decision
// writes its confirmation, undecided entry, audit entry, persona and
// idempotency record), where each key dirties its own leaf and branch
// pages. Each is reported against the unit, with the pages each commit
// wrote. A decision's commit cannot cost less than the five-key Txn: if
// that is above a goal, the goal needs another commit design, not a
// smaller transaction.
func BenchmarkCommitFloor(b *testing.B) {
	dir := b.TempDir()
	f, err := os.Create(filepath.Join(dir, "unit"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	page := make([]byte, 4096)
	// Written and synced once, so the loop overwrites blocks the file has.
	if _, err := f.WriteAt(make([]byte, 2*len(page)), 0); err != nil {
		b.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		b.Fatal(err)
	}
	sync := func(off int64) time.Duration {
		start := time.Now()
		if _, err := f.WriteAt(page, off); err != nil {
			b.Fatal(err)
		}
		if err := syscall.Fdatasync(int(f.Fd())); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	bare, err := bolt.Open(filepath.Join(dir, "bare.db"), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer bare.Close()
	bucket := []byte("kv")
	bareCommit := func(i int) time.Duration {
		start := time.Now()
		if err := bare.Update(func(tx *bolt.Tx) error {
			bk, err := tx.CreateBucketIfNotExists(bucket)
			if err != nil {
				return err
			}
			return bk.Put([]byte("floor"), []byte{byte(i)})
		}); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	s, _ := openT(b, Options{})
	ctx := context.Background()
	storeTxn := func(i int) time.Duration {
		start := time.Now()
		if _, err := s.Txn(ctx, nil, []Op{Put("floor", []byte{byte(i)})}); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	// A store of 20,000 records in the five ranges a decision writes to.
	ranges := []string{"confirm/req/", "confirm/undecided/", "audit/", "persona/", "idempotency/"}
	populated, _ := openT(b, Options{})
	value := make([]byte, 600)
	for n := 0; n < 20_000; n += MaxTxnOps {
		ops := make([]Op, 0, MaxTxnOps)
		for j := range MaxTxnOps {
			ops = append(ops, Put(fmt.Sprintf("%s%08x", ranges[j%len(ranges)], rand.Uint32()), value))
		}
		if _, err := populated.Txn(ctx, nil, ops); err != nil {
			b.Fatal(err)
		}
	}
	fiveKeys := func() time.Duration {
		ops := make([]Op, len(ranges))
		for j, r := range ranges {
			ops[j] = Put(fmt.Sprintf("%s%08x", r, rand.Uint32()), value)
		}
		start := time.Now()
		if _, err := populated.Txn(ctx, nil, ops); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	// The first commits of each file grow and shape it; the loop measures
	// the steady state.
	for i := range 8 {
		bareCommit(i)
		storeTxn(i)
		fiveKeys()
	}
	bareWrites := func() int64 { st := bare.Stats(); return st.TxStats.GetWrite() }
	bareWrites0 := bareWrites()
	st0, _ := s.Stats()
	five0, _ := populated.Stats()
	var unit, two, bareT, storeT, fiveT time.Duration
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		unit += sync(0)
		two += sync(0) + sync(int64(len(page)))
		bareT += bareCommit(i)
		storeT += storeTxn(i)
		fiveT += fiveKeys()
		i++
	}
	st, _ := s.Stats()
	five, _ := populated.Stats()
	n := float64(b.N)
	b.ReportMetric(float64(unit.Nanoseconds())/n, "fdatasync-ns/op")
	b.ReportMetric(float64(two)/float64(unit), "two-syncs/fdatasync")
	b.ReportMetric(float64(bareT)/float64(unit), "bbolt/fdatasync")
	b.ReportMetric(float64(storeT)/float64(unit), "store/fdatasync")
	b.ReportMetric(float64(bareWrites()-bareWrites0)/n, "bbolt-pages/commit")
	b.ReportMetric(float64(st.PageWrites-st0.PageWrites)/n, "store-pages/commit")
	b.ReportMetric(float64(fiveT)/float64(unit), "five-keys/fdatasync")
	b.ReportMetric(float64(five.PageWrites-five0.PageWrites)/n, "five-keys-pages/commit")
}
