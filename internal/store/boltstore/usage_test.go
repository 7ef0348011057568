package boltstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// TestUsageCountsTheBuckets: Usage of a real file counts each bucket's
// keys as written (the deletes gone, the change log's entries as the
// store's own counter says), pages for the values' bytes, and the pages
// the deletes freed.
func TestUsageCountsTheBuckets(t *testing.T) {
	b, err := Open(varied(t), Options{}) // big/ values with overflow pages, keyN records, deletes
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	u, err := b.Usage()
	if err != nil {
		t.Fatal(err)
	}
	st, err := b.Stats()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]BucketUsage{}
	for _, bu := range u.Buckets {
		byName[bu.Name] = bu
	}
	kv, log := byName[string(bucketKV)], byName[string(bucketLog)]
	if kv.Keys != 6+400 || int64(log.Keys) != st.LogEntries {
		t.Errorf("virgo.kv %d keys, virgo.log %d; want %d and the log's %d entries", kv.Keys, log.Keys, 6+400, st.LogEntries)
	}
	if kv.LeafBytes < 6*(3*4096)+400*300 || kv.LeafPages < kv.LeafBytes/u.PageSize || kv.Fill(u.PageSize) > 1 {
		t.Errorf("virgo.kv holds %d bytes in %d leaf pages of %d: fewer than its values take", kv.LeafBytes, kv.LeafPages, u.PageSize)
	}
	if u.FreePages == 0 || int64(u.FreePages) >= u.Pages || u.Pages*int64(u.PageSize) > st.FileSize {
		t.Errorf("%d free of %d pages in a file of %d bytes (the deletes free some)", u.FreePages, u.Pages, st.FileSize)
	}
}

// TestTimeOrderedKeysFillTheirLeaves: keys that only grow (the change log,
// records keyed by time) leave the leaves behind them full. At bbolt's
// default fill of one half every such leaf stayed half empty for ever.
func TestTimeOrderedKeysFillTheirLeaves(t *testing.T) {
	b, _ := openT(t, Options{})
	for i := range 200 {
		var ops []store.Op
		for j := range 10 {
			ops = append(ops, store.Put(fmt.Sprintf("audit/%020d", i*10+j), incompressible(400)))
		}
		mustTxn(t, b, nil, ops...)
	}
	wantFill(t, b, map[string]float64{string(bucketKV): 0.75, string(bucketLog): 0.9})
}

// wantFill checks that each named bucket of b fills its leaf pages to at
// least the given share.
func wantFill(t *testing.T, b *Store, want map[string]float64) {
	t.Helper()
	u, err := b.Usage()
	if err != nil {
		t.Fatal(err)
	}
	for _, bu := range u.Buckets {
		if least, ok := want[bu.Name]; ok && bu.Fill(u.PageSize) < least {
			t.Errorf("%s: %d keys in %d leaf pages, %.0f %% full; want at least %.0f %%", bu.Name, bu.Keys, bu.LeafPages, bu.Fill(u.PageSize)*100, least*100)
		}
	}
}

// TestWriteAllFillsTheLeavesOfNewKeys: many new keys at random places (a
// hub's first token hashes, a presence flush of every persona), written
// with WriteAll, fill their leaves as keys in order do; the caller's slice
// is left as it was.
func TestWriteAllFillsTheLeavesOfNewKeys(t *testing.T) {
	b, _ := openT(t, Options{})
	ops := make([]store.Op, 5000)
	for i, n := range rand.New(rand.NewPCG(1, 2)).Perm(len(ops)) {
		ops[i] = store.Put(fmt.Sprintf("token/%08x", uint32(n)*2654435761), incompressible(60))
	}
	given := slices.Clone(ops)
	if _, err := store.WriteAll(context.Background(), b, ops); err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(ops, given, func(a, b store.Op) bool { return a.Key == b.Key }) {
		t.Fatal("WriteAll reordered its caller's slice")
	}
	wantFill(t, b, map[string]float64{string(bucketKV): 0.75})
}
