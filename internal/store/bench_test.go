package store

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// BenchmarkTxnPut: one caller, one small put per Txn, each synced.
func BenchmarkTxnPut(b *testing.B) {
	s, _ := openT(b, Options{})
	ctx := context.Background()
	value := []byte("present")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Txn(ctx, nil, []Op{Put(keyN(i%10000), value)}); err != nil {
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
						if _, err := s.Txn(ctx, nil, []Op{Put(fmt.Sprintf("c%d/%d", c, i%1000), value)}); err != nil {
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

// BenchmarkOpen10k: open (validate, map, read the header) and close a
// database of 10,000 keys of 500 bytes; the goal is under 20 ms.
func BenchmarkOpen10k(b *testing.B) {
	path := populated(b, 10000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := OpenBolt(path, Options{})
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// BenchmarkPageWalk10k is precheck's page walk over the same database read
// from memory instead of the file: its CPU cost alone.
func BenchmarkPageWalk10k(b *testing.B) {
	data, err := os.ReadFile(populated(b, 10000))
	if err != nil {
		b.Fatal(err)
	}
	m := parseMeta(data[pageHeaderSize:])
	if m1 := parseMeta(data[int(m.pageSize)+pageHeaderSize:]); m1.txid > m.txid {
		m = m1
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w := pageWalk{r: chunkReader{f: bytes.NewReader(data), buf: make([]byte, walkChunk)},
			pageSize: uint64(m.pageSize), hwm: m.pgid, kind: make([]byte, m.pgid)}
		if err := w.run(m.root, m.freelist); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(m.pgid), "pages")
}

// BenchmarkList10k: one List over 10,000 keys of 500 bytes.
func BenchmarkList10k(b *testing.B) {
	path := populated(b, 10000)
	s, err := OpenBolt(path, Options{})
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
