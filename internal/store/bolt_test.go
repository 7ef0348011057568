package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

// openT opens a fresh store in a test directory and closes it at cleanup.
func openT(t testing.TB, opts Options) (*Bolt, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "virgo", "virgo.db")
	b, err := OpenBolt(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b, path
}

func mustTxn(t testing.TB, s Store, conds []Cond, ops ...Op) int64 {
	t.Helper()
	rev, err := s.Txn(context.Background(), conds, ops)
	if err != nil {
		t.Fatal(err)
	}
	return rev
}

func TestCRUDAndRevisions(t *testing.T) {
	ctx := context.Background()
	b, _ := openT(t, Options{})
	if rev, _ := b.Rev(ctx); rev != 0 {
		t.Fatalf("fresh store at revision %d, want 0", rev)
	}
	if _, err := b.Get(ctx, "a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("get of absent key: %v, want ErrNotFound", err)
	}
	if rev := mustTxn(t, b, nil, Put("a", []byte("1")), Put("b", []byte("2"))); rev != 1 {
		t.Fatalf("first txn revision %d, want 1", rev)
	}
	if rev := mustTxn(t, b, nil, Put("a", []byte("3"))); rev != 2 {
		t.Fatalf("second txn revision %d, want 2", rev)
	}
	kv, err := b.Get(ctx, "a")
	if err != nil || string(kv.Value) != "3" || kv.CreateRev != 1 || kv.ModRev != 2 {
		t.Fatalf("get a = %+v, %v; want value 3 created at 1, modified at 2", kv, err)
	}
	mustTxn(t, b, nil, Put("c/x", nil), Put("c/y", []byte("y")), Put("d", []byte("d")))
	list, err := b.List(ctx, "c/")
	if err != nil || len(list) != 2 || list[0].Key != "c/x" || list[1].Key != "c/y" {
		t.Fatalf("list c/ = %+v, %v", list, err)
	}
	all, _ := b.List(ctx, "")
	if len(all) != 5 {
		t.Fatalf("list of everything has %d keys, want 5", len(all))
	}
	if rev := mustTxn(t, b, nil, Op{Key: "a", Delete: true}); rev != 4 {
		t.Fatalf("delete revision %d, want 4", rev)
	}
	if _, err := b.Get(ctx, "a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted key still there: %v", err)
	}
	// Recreating a deleted key starts a new life: CreateRev is the new one.
	mustTxn(t, b, nil, Put("a", []byte("again")))
	if kv, _ := b.Get(ctx, "a"); kv.CreateRev != 5 || kv.ModRev != 5 {
		t.Fatalf("recreated key %+v, want created and modified at 5", kv)
	}
}

func TestNoOpTxnWritesNothing(t *testing.T) {
	ctx := context.Background()
	b, _ := openT(t, Options{})
	mustTxn(t, b, nil, Put("a", []byte("1")))
	before, _ := b.Stats()
	// "A Txn with no ops and passing conds returns the current revision
	// without writing"; deleting an absent key changes nothing either.
	if rev := mustTxn(t, b, []Cond{{Key: "a", ModRev: 1}}); rev != 1 {
		t.Fatalf("no-op txn returned %d, want the current revision 1", rev)
	}
	if rev := mustTxn(t, b, nil, Op{Key: "absent", Delete: true}); rev != 1 {
		t.Fatalf("delete of an absent key returned %d, want 1", rev)
	}
	after, _ := b.Stats()
	if after.Commits != before.Commits || after.Rev != 1 {
		t.Fatalf("no-op txns committed: %+v -> %+v", before, after)
	}
	if _, err := b.Txn(ctx, []Cond{{Key: "a", ModRev: 7}}, nil); !errors.Is(err, ErrConflict) {
		t.Fatalf("no-op txn with a failing cond: %v, want ErrConflict", err)
	}
}

func TestCASConflict(t *testing.T) {
	ctx := context.Background()
	b, _ := openT(t, Options{})
	// "ModRev 0 means the key must not exist."
	mustTxn(t, b, []Cond{{Key: "seat", ModRev: 0}}, Put("seat", []byte("spica")))
	_, err := b.Txn(ctx, []Cond{{Key: "seat", ModRev: 0}}, []Op{Put("seat", []byte("heze"))})
	if !errors.Is(err, ErrConflict) {
		t.Fatalf("second create: %v, want ErrConflict", err)
	}
	_, err = b.Txn(ctx, []Cond{{Key: "seat", ModRev: 1}, {Key: "other", ModRev: 3}}, []Op{Put("seat", []byte("heze"))})
	if !errors.Is(err, ErrConflict) {
		t.Fatalf("txn with one failing cond of two: %v, want ErrConflict", err)
	}
	if kv, _ := b.Get(ctx, "seat"); string(kv.Value) != "spica" {
		t.Fatalf("a conflicting txn wrote: %q", kv.Value)
	}
	if rev, _ := b.Rev(ctx); rev != 1 {
		t.Fatalf("conflicts moved the revision to %d", rev)
	}
	if rev := mustTxn(t, b, []Cond{{Key: "seat", ModRev: 1}}, Put("seat", []byte("heze"))); rev != 2 {
		t.Fatalf("CAS with the right revision: %d, want 2", rev)
	}
}

func TestInvalidOpsRefused(t *testing.T) {
	ctx := context.Background()
	b, _ := openT(t, Options{})
	for _, ops := range [][]Op{{Put("", []byte("x"))}, {Put(string(make([]byte, 40000)), nil)}} {
		if _, err := b.Txn(ctx, nil, ops); !errors.Is(err, ErrInvalidOp) {
			t.Errorf("txn %d-byte key: %v, want ErrInvalidOp", len(ops[0].Key), err)
		}
	}
}

func TestReopenKeepsDataAndRevision(t *testing.T) {
	ctx := context.Background()
	b, path := openT(t, Options{})
	for i := 0; i < 10; i++ {
		mustTxn(t, b, nil, Put("k", []byte{byte(i)}))
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	b2, err := OpenBolt(path, Options{})
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
	if rev := mustTxn(t, b2, nil, Put("k", nil)); rev != 11 {
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
		mustTxn(t, b, nil, Put(keyN(i), big[i:]), Put("small", []byte{byte(i)}))
	}
	mustTxn(t, b, nil, Op{Key: keyN(0), Delete: true})
	b.Close()
	b2, err := OpenBolt(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	if kv, err := b2.Get(ctx, keyN(4)); err != nil || len(kv.Value) != len(big)-4 || kv.Value[0] != 4 {
		t.Fatalf("large value after reopen: %d bytes, %v", len(kv.Value), err)
	}
}

func TestClosedStore(t *testing.T) {
	ctx := context.Background()
	b, _ := openT(t, Options{})
	b.Close()
	if _, err := b.Get(ctx, "a"); !errors.Is(err, ErrClosed) {
		t.Errorf("get after close: %v", err)
	}
	if _, err := b.List(ctx, ""); !errors.Is(err, ErrClosed) {
		t.Errorf("list after close: %v", err)
	}
	if _, err := b.Txn(ctx, nil, []Op{Put("a", nil)}); !errors.Is(err, ErrClosed) {
		t.Errorf("txn after close: %v", err)
	}
	if _, err := b.Rev(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("rev after close: %v", err)
	}
	if _, err := b.Watch(ctx, "", 0); !errors.Is(err, ErrClosed) {
		t.Errorf("watch after close: %v", err)
	}
	if err := b.Close(); !errors.Is(err, ErrClosed) {
		t.Errorf("second close: %v", err)
	}
}
