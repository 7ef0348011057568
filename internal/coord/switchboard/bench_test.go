package switchboard

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/procmem"
	"github.com/virgo-hub/virgo-tui/internal/quota"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
)

// seedInbox writes n messages into seat's inbox of a real bbolt file, in
// batches, as n sends would leave them.
func seedInbox(b *testing.B, n int) (*Book, string) {
	b.Helper()
	st, err := boltstore.Open(filepath.Join(b.TempDir(), "virgo.db"), boltstore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	seat := "work/core/deputy"
	ctx := context.Background()
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for lo := 0; lo < n; lo += 5000 {
		var ops []store.Op
		for i := lo; i < min(lo+5000, n); i++ {
			seq := uint64(i + 1)
			m := coord.Message{ID: coord.MessageID(seat, seq), To: seat, From: coord.Sender{Address: "work/core/lead", Name: "Spica", ID: "p-0123456789ab", Generation: 1},
				Subject: "progress", Body: fmt.Sprintf("report %d: the build is green and the review is done", i), SentAt: at}
			raw, err := json.Marshal(m)
			if err != nil {
				b.Fatal(err)
			}
			ops = append(ops, store.Put(keyInbox(seat, seq), raw))
		}
		if _, err := store.WriteAll(ctx, st, ops); err != nil {
			b.Fatal(err)
		}
	}
	book, err := json.Marshal(seatBook{Last: uint64(n), Pending: n})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := st.Txn(ctx, nil, []store.Op{store.Put(keySeat(seat), book)}); err != nil {
		b.Fatal(err)
	}
	return New(st, nil, quota.Limits{}), seat
}

// BenchmarkInboxPage100k is the goal "listing a 100,000-message inbox
// page by page (each page < 5 ms)": one op is one page of 100 (and of
// 500, the largest), the walk going on through the whole inbox with the
// continuation tokens. The baseline reads the whole inbox at once, as a
// list without ranged reads must.
func BenchmarkInboxPage100k(b *testing.B) {
	book, seat := seedInbox(b, 100_000)
	ctx := context.Background()
	for _, limit := range []int{100, 500} {
		b.Run(fmt.Sprintf("page=%d", limit), func(b *testing.B) {
			b.ReportAllocs()
			next := ""
			start := procmem.CPUTime()
			for b.Loop() {
				page, err := book.Inbox(ctx, seat, next, limit)
				if err != nil {
					b.Fatal(err)
				}
				if next = page.Next; next == "" && len(page.Items) == 0 {
					b.Fatal("an empty page")
				}
			}
			b.ReportMetric(float64(procmem.CPUTime()-start)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
	b.Run("baseline/whole-inbox", func(b *testing.B) {
		b.ReportAllocs()
		start := procmem.CPUTime()
		for b.Loop() {
			kvs, err := book.st.List(ctx, inboxPrefix(seat))
			if err != nil || len(kvs) != 100_000 {
				b.Fatal(len(kvs), err)
			}
		}
		b.ReportMetric(float64(procmem.CPUTime()-start)/float64(b.N)/1e6, "cpu-ms/op")
	})
}
