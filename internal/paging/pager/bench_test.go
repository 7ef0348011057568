package pager

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
)

// benchRecords is the size of a long list's goal (a 100,000-item
// inbox); each record is about as large as a task's index entry.
const benchRecords = 100_000

func filled(b *testing.B) store.Store {
	b.Helper()
	st, err := boltstore.Open(filepath.Join(b.TempDir(), "virgo.db"), boltstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	ctx := context.Background()
	ops := make([]store.Op, 0, benchRecords)
	for i := range benchRecords {
		ops = append(ops, store.Put(fmt.Sprintf("list/%08d", i), []byte(fmt.Sprintf("t-%016x", i))))
	}
	if _, err := store.WriteAll(ctx, st, ops); err != nil {
		b.Fatal(err)
	}
	return st
}

func keep(kv store.KV) (string, bool, error) { return string(kv.Value), true, nil }

// BenchmarkPageOf100k reads one page of 50 from a 100,000-record list, at
// its start and at its end (a token 99,900 records in): the cost is the
// page's, wherever it is. The baseline reads the whole list and slices
// the page out of it, as a list without ranged reads does.
func BenchmarkPageOf100k(b *testing.B) {
	st := filled(b)
	ctx := context.Background()
	end := paging.Token("list/", fmt.Sprintf("list/%08d", benchRecords-100))
	for _, c := range []struct{ name, token string }{{"first", ""}, {"last", end}} {
		b.Run("range/"+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p, err := Read(ctx, st, "list/", c.token, paging.DefaultLimit, keep)
				if err != nil || len(p.Items) != paging.DefaultLimit {
					b.Fatalf("%d items, %v", len(p.Items), err)
				}
			}
		})
	}
	b.Run("baseline-list-all", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			kvs, err := st.List(ctx, "list/")
			if err != nil || len(kvs) != benchRecords {
				b.Fatalf("%d records, %v", len(kvs), err)
			}
			_ = kvs[benchRecords-100 : benchRecords-100+paging.DefaultLimit]
		}
	})
}
