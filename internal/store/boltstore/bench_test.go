package boltstore

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// BenchmarkTxnPut: one caller, one small put per Txn, each synced.
func BenchmarkTxnPut(b *testing.B) {
	s, _ := openT(b, Options{})
	ctx := context.Background()
	value := []byte("present")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Txn(ctx, nil, []store.Op{store.Put(keyN(i%10000), value)}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "txns/s")
}

// BenchmarkTxnConcurrent: b.N puts spread over concurrent callers; group
// commit should raise txns/s with the caller count (txns/commit shows why).
func BenchmarkTxnConcurrent(b *testing.B) {
	for _, callers := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("callers=%d", callers), func(b *testing.B) {
			s, _ := openT(b, Options{})
			ctx := context.Background()
			value := []byte("present")
			b.ReportAllocs()
			b.ResetTimer()
			var wg sync.WaitGroup
			for c := 0; c < callers; c++ {
				n := b.N / callers
				if c < b.N%callers {
					n++
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 0; i < n; i++ {
						if _, err := s.Txn(ctx, nil, []store.Op{store.Put(fmt.Sprintf("c%d/%d", c, i%1000), value)}); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.StopTimer()
			st, _ := s.Stats()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "txns/s")
			b.ReportMetric(float64(st.Txns)/float64(max(st.Commits, 1)), "txns/commit")
		})
	}
}

// BenchmarkFsync is the floor under every durable Txn: 100 bytes written and
// synced to a file in the same kind of directory.
func BenchmarkFsync(b *testing.B) {
	f, err := os.Create(filepath.Join(b.TempDir(), "sync"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 100)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := f.WriteAt(buf, int64(i%100)*100); err != nil {
			b.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "syncs/s")
}

// BenchmarkOpen10k: open (validate, map, read the header) a database of
// 10,000 keys of 500 bytes; the goal is under 20 ms. walked: every page is
// checked (no clean-close record, as after a crash: the record is removed
// before each open); clean-close: the file is as its last clean close left
// it, so only its meta pages and size are. close-ms is the Close after
// each open (untimed), which syncs the file and writes the record.
func BenchmarkOpen10k(b *testing.B) {
	path := populated(b, 10000)
	for _, walked := range []bool{true, false} {
		name := "clean-close"
		if walked {
			name = "walked"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var closing time.Duration
			for b.Loop() {
				if walked {
					b.StopTimer()
					os.Remove(cleanClosePath(path))
					b.StartTimer()
				}
				s, err := Open(path, Options{})
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if st, _ := s.Stats(); st.WalkedAtOpen != walked {
					b.Fatalf("walked at open: %v, want %v", st.WalkedAtOpen, walked)
				}
				t0 := time.Now()
				s.Close()
				closing += time.Since(t0)
				b.StartTimer()
			}
			b.ReportMetric(float64(closing.Microseconds())/1000/float64(b.N), "close-ms")
		})
	}
}

// BenchmarkPageCheck10k is what the pre-open page walk costs beside bbolt's
// own consistency check of the same 10,000-record file, in one loop: the
// walk as an open runs it (checkFile: the file read through one buffer,
// walk-ms) and Tx.Check on a read-only open (the pages read through the
// map, txcheck-ms). Tx.Check cannot stand in for the walk at any cost: it
// runs in a goroutine of its own, where the fault of a damaged page kills
// the process (guard recovers faults on its own goroutine only), and it
// runs once bbolt has mapped and trusted the file.
func BenchmarkPageCheck10k(b *testing.B) {
	path := populated(b, 10000)
	var walk, check time.Duration
	for b.Loop() {
		t0 := time.Now()
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		fi, err := f.Stat()
		if err != nil {
			b.Fatal(err)
		}
		if walked, err := checkFile(path, f, fi, nil); err != nil || !walked {
			b.Fatalf("walked %v: %v", walked, err)
		}
		f.Close()
		t1 := time.Now()
		db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		if err := db.View(func(tx *bolt.Tx) error {
			for err := range tx.Check() {
				return err
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		db.Close()
		walk, check = walk+t1.Sub(t0), check+time.Since(t1)
	}
	b.ReportMetric(float64(walk.Microseconds())/1000/float64(b.N), "walk-ms")
	b.ReportMetric(float64(check.Microseconds())/1000/float64(b.N), "txcheck-ms")
}

// BenchmarkList10k: one List over 10,000 keys of 500 bytes.
func BenchmarkList10k(b *testing.B) {
	path := populated(b, 10000)
	s, err := Open(path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		list, err := s.List(ctx, "persona/")
		if err != nil || len(list) != 10000 {
			b.Fatalf("%d keys, %v", len(list), err)
		}
	}
}

// sinkKV keeps the compiler from dropping the decoded records.
var sinkKV store.KV

// BenchmarkRecordRead10k is what the checksum adds to a read: decoding the
// 10,000 stored records of 500 B a List10k reads, with the CRC-32C check
// (as the store reads) and the same copy-out without it, interleaved in one
// loop so that a busy machine disturbs both alike.
func BenchmarkRecordRead10k(b *testing.B) {
	keys := make([][]byte, 10000)
	raws := make([][]byte, 10000)
	for i := range raws {
		keys[i] = []byte(keyN(i))
		raws[i] = encodeRecord(keys[i], int64(i+1), int64(i+1), bytes.Repeat([]byte("v"), 500))
	}
	var checked, unchecked time.Duration
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		for j, raw := range raws {
			kv, err := decodeKV(keys[j], raw)
			if err != nil {
				b.Fatal(err)
			}
			sinkKV = kv
		}
		mid := time.Now()
		for j, raw := range raws {
			sinkKV = store.KV{Key: string(keys[j]), Value: append([]byte{}, raw[recordHeader:]...),
				CreateRev: createRevOf(raw), ModRev: modRevOf(raw)}
		}
		checked, unchecked = checked+mid.Sub(start), unchecked+time.Since(mid)
	}
	b.ReportMetric(float64(checked.Microseconds())/float64(b.N), "checked-µs/op")
	b.ReportMetric(float64(unchecked.Microseconds())/float64(b.N), "unchecked-µs/op")
	b.ReportMetric(float64(checked)/float64(unchecked), "ratio")
}
