package boltstore

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// openT opens a fresh store in a test directory and closes it at cleanup.
func openT(t testing.TB, opts Options) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "virgo", "virgo.db")
	b, err := Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b, path
}

func mustTxn(t testing.TB, s store.Store, conds []store.Cond, ops ...store.Op) int64 {
	t.Helper()
	rev, err := s.Txn(context.Background(), conds, ops)
	if err != nil {
		t.Fatal(err)
	}
	return rev
}

func TestNoOpTxnWritesNothing(t *testing.T) {
	ctx := context.Background()
	b, _ := openT(t, Options{})
	mustTxn(t, b, nil, store.Put("a", []byte("1")))
	before, _ := b.Stats()
	// "A Txn with no ops and passing conds returns the current revision
	// without writing"; deleting an absent key changes nothing either.
	if rev := mustTxn(t, b, []store.Cond{{Key: "a", ModRev: 1}}); rev != 1 {
		t.Fatalf("no-op txn returned %d, want the current revision 1", rev)
	}
	if rev := mustTxn(t, b, nil, store.Op{Key: "absent", Delete: true}); rev != 1 {
		t.Fatalf("delete of an absent key returned %d, want 1", rev)
	}
	after, _ := b.Stats()
	if after.Commits != before.Commits || after.Rev != 1 || after.PageWrites != before.PageWrites {
		t.Fatalf("no-op txns committed: %+v -> %+v", before, after)
	}
	mustTxn(t, b, nil, store.Put("a", []byte("2")))
	if wrote, _ := b.Stats(); wrote.PageWrites <= after.PageWrites {
		t.Fatalf("a commit wrote no pages: %+v -> %+v", after, wrote)
	}
	if _, err := b.Txn(ctx, []store.Cond{{Key: "a", ModRev: 7}}, nil); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("no-op txn with a failing cond: %v, want ErrConflict", err)
	}
}

// CommitTime is the committer's busy time and WriteTime bbolt's part of it:
// a commit adds to both, its write no more than the whole; a Txn that
// writes nothing syncs nothing.
func TestCommitTimeCoversItsWrite(t *testing.T) {
	b, _ := openT(t, Options{})
	before, _ := b.Stats()
	mustTxn(t, b, nil, store.Put("a", []byte("1")))
	after, _ := b.Stats()
	commit, write := after.CommitTime-before.CommitTime, after.WriteTime-before.WriteTime
	if write <= 0 || commit < write {
		t.Fatalf("a commit took %v, its write %v: want 0 < write <= commit", commit, write)
	}
	mustTxn(t, b, []store.Cond{{Key: "a", ModRev: 1}})
	if noop, _ := b.Stats(); noop.WriteTime != after.WriteTime {
		t.Fatalf("a Txn that wrote nothing added %v of writing", noop.WriteTime-after.WriteTime)
	}
}

func TestReopenKeepsDataAndRevision(t *testing.T) {
	ctx := context.Background()
	b, path := openT(t, Options{})
	for i := 0; i < 10; i++ {
		mustTxn(t, b, nil, store.Put("k", []byte{byte(i)}))
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	b2, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	if rev, _ := b2.Rev(ctx); rev != 10 {
		t.Fatalf("reopened at revision %d, want 10", rev)
	}
	kv, err := b2.Get(ctx, "k")
	if err != nil || kv.Value[0] != 9 || kv.CreateRev != 1 || kv.ModRev != 10 {
		t.Fatalf("reopened key %+v, %v", kv, err)
	}
	if rev := mustTxn(t, b2, nil, store.Put("k", nil)); rev != 11 {
		t.Fatalf("first txn after reopen at %d, want 11", rev)
	}
}

// Values larger than a page live on overflow pages; reopening walks them.
func TestLargeValuesReopen(t *testing.T) {
	ctx := context.Background()
	b, path := openT(t, Options{})
	big := make([]byte, 300_000)
	for i := range big {
		big[i] = byte(i)
	}
	for i := 0; i < 5; i++ {
		mustTxn(t, b, nil, store.Put(keyN(i), big[i:]), store.Put("small", []byte{byte(i)}))
	}
	mustTxn(t, b, nil, store.Op{Key: keyN(0), Delete: true})
	b.Close()
	b2, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	if kv, err := b2.Get(ctx, keyN(4)); err != nil || len(kv.Value) != len(big)-4 || kv.Value[0] != 4 {
		t.Fatalf("large value after reopen: %d bytes, %v", len(kv.Value), err)
	}
}

// A missing key's error is ErrNotFound and names the key.
func TestGetMissNamesTheKey(t *testing.T) {
	b, _ := openT(t, Options{})
	_, err := b.Get(context.Background(), "confirm/c-1")
	if !errors.Is(err, store.ErrNotFound) || err.Error() != `get "confirm/c-1": not found` {
		t.Fatalf("get of a missing key: %v, want store.ErrNotFound naming the key", err)
	}
}
