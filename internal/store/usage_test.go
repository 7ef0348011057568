package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestFileUsageCountsEveryPage: FileUsage of a real file counts each key
// range's records and bytes as written, and accounts for every page below
// the high-water mark and every byte of the file, as bbolt's own
// statistics do.
func TestFileUsageCountsEveryPage(t *testing.T) {
	path := varied(t) // big/ values with overflow pages, keyN records, deletes (free pages)
	u, err := FileUsage(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if u.FileBytes != fi.Size() || u.TailBytes != fi.Size()-int64(u.Pages)*int64(u.PageSize) {
		t.Errorf("file %d bytes, tail %d: the usage says %d and %d", fi.Size(), fi.Size()-int64(u.Pages)*int64(u.PageSize), u.FileBytes, u.TailBytes)
	}
	byPrefix := map[string]RangeUsage{}
	var leaves float64
	for _, r := range u.Ranges {
		byPrefix[r.Bucket+" "+r.Prefix] = r
		leaves += r.LeafPages
	}
	if big := byPrefix["virgo.kv big/"]; big.Records != 6 || big.ValueBytes < 6*(recordHeader+3*4096) {
		t.Errorf("big/: %+v, want 6 records of more than 3 pages each", big)
	}
	var bs bolt.BucketStats
	freed := 0
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustView(t, db, func(tx *bolt.Tx) error {
		bs = tx.Bucket(bucketKV).Stats()
		for err := range tx.Check() { // loads the freelist of a read-only open, as Page needs
			t.Errorf("bbolt check: %v", err)
		}
		for id := 2; id < int(u.Pages); id++ {
			if p, err := tx.Page(id); err == nil && p != nil && p.Type == "free" {
				freed++
			}
		}
		return nil
	})
	var kvLeaves float64
	var kvRecords int64
	for _, r := range u.Ranges {
		if r.Bucket == string(bucketKV) {
			kvLeaves += r.LeafPages
			kvRecords += r.Records
		}
	}
	if int(kvLeaves+0.5) != bs.LeafPageN+bs.LeafOverflowN || int(kvRecords) != bs.KeyN {
		t.Errorf("virgo.kv: %.2f leaf pages, %d records; bbolt counts %d leaf (+%d overflow) pages and %d keys",
			kvLeaves, kvRecords, bs.LeafPageN, bs.LeafOverflowN, bs.KeyN)
	}
	if int(u.FreePages) != freed || u.FreePages == 0 {
		t.Errorf("%d free pages; bbolt counts %d (the deletes free some)", u.FreePages, freed)
	}
	if sum := u.MetaPages + u.FreelistPages + u.FreePages + u.BranchPages + uint64(leaves+0.5); sum != u.Pages || u.FreelistPages != 1 {
		t.Errorf("meta %d + freelist %d + free %d + branch %d + leaf %.2f = %d pages; the high-water mark is %d",
			u.MetaPages, u.FreelistPages, u.FreePages, u.BranchPages, leaves, sum, u.Pages)
	}
}

func mustView(t *testing.T, db *bolt.DB, fn func(*bolt.Tx) error) {
	t.Helper()
	if err := db.View(fn); err != nil {
		t.Fatal(err)
	}
}

// TestTimeOrderedKeysFillTheirLeaves: keys that only grow (the change log,
// records keyed by time) leave the leaves behind them full. At bbolt's
// default fill of one half every such leaf stayed half empty for ever.
func TestTimeOrderedKeysFillTheirLeaves(t *testing.T) {
	b, path := openT(t, Options{})
	for i := range 200 {
		var ops []Op
		for j := range 10 {
			ops = append(ops, Put(fmt.Sprintf("audit/%020d", i*10+j), incompressible(400)))
		}
		mustTxn(t, b, nil, ops...)
	}
	wantFill(t, b, path, map[string]float64{"audit/": 0.75, string(bucketLog): 0.9})
}

// wantFill closes b and checks that each named key range of its file (a
// prefix, or a bucket) fills its leaf pages to at least the given share.
func wantFill(t *testing.T, b *Bolt, path string, want map[string]float64) {
	t.Helper()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	u, err := FileUsage(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range u.Ranges {
		name := r.Prefix
		if name == "" {
			name = r.Bucket
		}
		fill := float64(r.LiveBytes()) / (r.LeafPages * float64(u.PageSize))
		if least, ok := want[name]; ok && fill < least {
			t.Errorf("%s: %d records in %.1f leaf pages, %.0f %% full; want at least %.0f %%", name, r.Records, r.LeafPages, fill*100, least*100)
		}
	}
}

// TestWriteAllFillsTheLeavesOfNewKeys: many new keys at random places (a
// hub's first token hashes, a presence flush of every persona), written
// with WriteAll, fill their leaves as keys in order do; the caller's slice
// is left as it was.
func TestWriteAllFillsTheLeavesOfNewKeys(t *testing.T) {
	b, path := openT(t, Options{})
	ops := make([]Op, 5000)
	for i, n := range rand.New(rand.NewPCG(1, 2)).Perm(len(ops)) {
		ops[i] = Put(fmt.Sprintf("token/%08x", uint32(n)*2654435761), incompressible(60))
	}
	given := slices.Clone(ops)
	if _, err := WriteAll(context.Background(), b, ops); err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(ops, given, func(a, b Op) bool { return a.Key == b.Key }) {
		t.Fatal("WriteAll reordered its caller's slice")
	}
	wantFill(t, b, path, map[string]float64{"token/": 0.75})
}

// TestFileUsageRefusesAHeldFileAndDamage: a file a store holds open for
// writing is ErrLocked (FileUsage waits for the shared lock no longer than
// told), and a file whose pages do not hold together is ErrCorrupt.
func TestFileUsageRefusesAHeldFileAndDamage(t *testing.T) {
	_, path := openT(t, Options{})
	if _, err := FileUsage(path, 50e6); !errors.Is(err, ErrLocked) {
		t.Errorf("a held file: %v, want ErrLocked", err)
	}
	bad := varied(t)
	data, err := os.ReadFile(bad)
	if err != nil {
		t.Fatal(err)
	}
	m := liveMeta(t, data)
	page := data[m.root*uint64(m.pageSize):]
	copy(page, []byte{0xff, 0xff, 0xff, 0xff}) // the root page no longer carries its id
	if err := os.WriteFile(bad, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := FileUsage(bad, 0); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a damaged file: %v, want ErrCorrupt", err)
	}
}
