//go:build linux

package boltstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
	"unsafe"

	bolt "go.etcd.io/bbolt"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// meter accumulates one part of BenchmarkCommitFloor: its wall time, the
// CPU time of the benchmark's thread (user and system: the kernel's work of
// a write and a sync is counted there, the wait for the disk is not) and
// its pages.
type meter struct {
	name      string
	wall, cpu time.Duration
	pages     int64
	cpu0      time.Duration
	t0        time.Time
}

// threadCPU is the calling thread's CPU time so far, to the nanosecond
// (the process's rusage is counted in scheduler ticks, too coarse for one
// commit). The benchmark locks its goroutine to its thread; a lone
// caller's Txn commits on it.
func threadCPU() time.Duration {
	var ts syscall.Timespec
	const clockThreadCPUTime = 3 // CLOCK_THREAD_CPUTIME_ID
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}

func (m *meter) start() { m.cpu0, m.t0 = threadCPU(), time.Now() }

func (m *meter) stop() {
	m.wall += time.Since(m.t0)
	m.cpu += threadCPU() - m.cpu0
}

// BenchmarkCommitFloor is where a commit's cost comes from, all interleaved
// in one loop so that every part sees the same disk and load. The unit is a
// 4 KiB page overwritten and fdatasync'ed (what bbolt's sync is on Linux);
// every other part is reported against it (x/fdatasync), with its CPU time
// per operation (x-cpu-us/op) and the pages it wrote (x-pages/commit):
//
//   - two-syncs: two pages, each synced (bbolt's floor: its data pages,
//     then its meta page);
//   - 14-scattered, 14-contiguous, 14-in-one-write: a decision's number of
//     pages written at random places of a 32 MiB file, in a row, and as one
//     write, then one fdatasync: whether the disk charges per page, per
//     place or per byte;
//   - bbolt: a one-key commit of a bare bbolt file (3 pages);
//   - store: the store's one-key Txn (checksums, change log, counters);
//   - five-keys: a store Txn of five keys in five ranges of 20,000 records;
//   - shape-*: a decision's writes (decisionShape) on bare bbolt files laid
//     out as the store's, under each bbolt option and key layout that could
//     cut its pages: 4, 8 and 16 KiB pages, no freelist written per commit
//     (NoFreelistSync with the hashmap freelist), and the confirmation's
//     records under one key range.
//
// A decision's commit cannot cost less than its shape: if that is above a
// goal, the goal needs another commit design, not a smaller transaction.
func BenchmarkCommitFloor(b *testing.B) {
	dir := b.TempDir()
	f, err := os.Create(filepath.Join(dir, "unit"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	page := make([]byte, 4096)
	// Written and synced once, so the loop overwrites blocks the file has.
	const span = 8192 // pages: 32 MiB, the span of a store of 20,000 records
	if _, err := f.WriteAt(make([]byte, span*len(page)), 0); err != nil {
		b.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		b.Fatal(err)
	}
	datasync := func() {
		if err := syscall.Fdatasync(int(f.Fd())); err != nil {
			b.Fatal(err)
		}
	}
	write := func(p []byte, off int64) {
		if _, err := f.WriteAt(p, off); err != nil {
			b.Fatal(err)
		}
	}
	const decisionPages = 14
	run := make([]byte, decisionPages*len(page))
	offsets := make([]int64, decisionPages)
	somePages := func(m *meter, contiguous bool) {
		first := rand.Int64N(span - decisionPages)
		for j := range offsets {
			offsets[j] = rand.Int64N(span)
			if contiguous {
				offsets[j] = first + int64(j)
			}
		}
		m.start()
		for _, off := range offsets {
			write(page, off*int64(len(page)))
		}
		datasync()
		m.stop()
	}

	bare, err := bolt.Open(filepath.Join(dir, "bare.db"), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer bare.Close()
	if err := bare.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("kv")); return err }); err != nil {
		b.Fatal(err)
	}
	bareWrites := func() int64 { st := bare.Stats(); return st.TxStats.GetWrite() }

	ctx := context.Background()
	one, _ := openT(b, Options{})
	txn := func(m *meter, s *Store, ops []store.Op) {
		before, _ := s.Stats()
		m.start()
		if _, err := s.Txn(ctx, nil, ops); err != nil {
			b.Fatal(err)
		}
		m.stop()
		after, _ := s.Stats()
		m.pages += after.PageWrites - before.PageWrites
	}
	// A store of 20,000 records in the five ranges a decision writes to.
	ranges := []string{"confirm/req/", "confirm/undecided/", "audit/", "persona/", "idempotency/"}
	populated, _ := openT(b, Options{})
	value := make([]byte, 600)
	for n := 0; n < 20_000; n += store.MaxTxnOps {
		ops := make([]store.Op, 0, store.MaxTxnOps)
		for j := range store.MaxTxnOps {
			ops = append(ops, store.Put(fmt.Sprintf("%s%08x", ranges[j%len(ranges)], rand.Uint32()), value))
		}
		if _, err := populated.Txn(ctx, nil, ops); err != nil {
			b.Fatal(err)
		}
	}
	shapes := []struct {
		name string
		opts bolt.Options
		co   bool
	}{
		{"shape-4k", bolt.Options{}, false},
		{"shape-8k", bolt.Options{PageSize: 8192}, false},
		{"shape-16k", bolt.Options{PageSize: 16384}, false},
		{"shape-nofreelist", bolt.Options{NoFreelistSync: true, FreelistType: bolt.FreelistMapType}, false},
		{"shape-colocated", bolt.Options{}, true},
		{"shape-colocated-nofreelist", bolt.Options{NoFreelistSync: true, FreelistType: bolt.FreelistMapType}, true},
	}

	unit := &meter{name: "fdatasync"}
	parts := []struct {
		m   *meter
		run func(m *meter, i int)
	}{
		{unit, func(m *meter, _ int) { m.start(); write(page, 0); datasync(); m.stop(); m.pages++ }},
		{&meter{name: "two-syncs"}, func(m *meter, _ int) {
			m.start()
			write(page, 0)
			datasync()
			write(page, int64(len(page)))
			datasync()
			m.stop()
			m.pages += 2
		}},
		{&meter{name: "14-scattered"}, func(m *meter, _ int) { somePages(m, false); m.pages += decisionPages }},
		{&meter{name: "14-contiguous"}, func(m *meter, _ int) { somePages(m, true); m.pages += decisionPages }},
		{&meter{name: "14-in-one-write"}, func(m *meter, _ int) {
			off := rand.Int64N(span-decisionPages) * int64(len(page))
			m.start()
			write(run, off)
			datasync()
			m.stop()
			m.pages += decisionPages
		}},
		{&meter{name: "bbolt"}, func(m *meter, i int) {
			before := bareWrites()
			m.start()
			if err := bare.Update(func(tx *bolt.Tx) error {
				return tx.Bucket([]byte("kv")).Put([]byte("floor"), []byte{byte(i)})
			}); err != nil {
				b.Fatal(err)
			}
			m.stop()
			m.pages += bareWrites() - before
		}},
		{&meter{name: "store"}, func(m *meter, i int) { txn(m, one, []store.Op{store.Put("floor", []byte{byte(i)})}) }},
		{&meter{name: "five-keys"}, func(m *meter, _ int) {
			ops := make([]store.Op, len(ranges))
			for j, r := range ranges {
				ops[j] = store.Put(fmt.Sprintf("%s%08x", r, rand.Uint32()), value)
			}
			txn(m, populated, ops)
		}},
	}
	for _, s := range shapes {
		d := newDecisionShape(b, s.opts, s.co)
		parts = append(parts, struct {
			m   *meter
			run func(m *meter, i int)
		}{&meter{name: s.name}, func(m *meter, _ int) { d.commit(b, m) }})
	}
	// The first commits of each file grow and shape it; the loop measures
	// the steady state.
	for i := range 8 {
		for _, p := range parts {
			p.run(p.m, i)
		}
	}
	for _, p := range parts {
		*p.m = meter{name: p.m.name}
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// In a new order each round: a part's sync may still wait on the
	// journal commit of the part before it, so a fixed order would charge
	// one part for another's.
	order := make([]int, len(parts))
	for j := range order {
		order[j] = j
	}
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		rand.Shuffle(len(order), func(x, y int) { order[x], order[y] = order[y], order[x] })
		for _, j := range order {
			parts[j].run(parts[j].m, i)
		}
		i++
	}
	n := float64(b.N)
	b.ReportMetric(float64(unit.wall.Nanoseconds())/n, "fdatasync-ns/op")
	for _, p := range parts {
		if p.m != unit {
			b.ReportMetric(float64(p.m.wall)/float64(unit.wall), p.m.name+"/fdatasync")
		}
		b.ReportMetric(float64(p.m.cpu.Microseconds())/n, p.m.name+"-cpu-us/op")
		b.ReportMetric(float64(p.m.pages)/n, p.m.name+"-pages/commit")
	}
}
