package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// readTxns is how many read transactions b's bbolt has begun.
func readTxns(b *Bolt) int { return b.db.Stats().TxN }

// The reads under one ShareReads context begin one read transaction
// between them; without it, each begins its own.
func TestShareReadsBeginsOneReadTransaction(t *testing.T) {
	ctx := context.Background()
	b, _ := openT(t, Options{})
	mustTxn(t, b, nil, Put("k/a", []byte("1")), Put("k/b", []byte("2")))
	read := func(ctx context.Context) {
		t.Helper()
		for _, k := range []string{"k/a", "k/b", "k/a"} {
			if _, err := b.Get(ctx, k); err != nil {
				t.Fatal(err)
			}
		}
		if kvs, err := b.List(ctx, "k/"); err != nil || len(kvs) != 2 {
			t.Fatalf("List: %d keys, %v", len(kvs), err)
		}
		if kvs, more, err := b.Range(ctx, "k/", "k/a", 5); err != nil || more || len(kvs) != 1 || kvs[0].Key != "k/b" {
			t.Fatalf("Range: %v more=%v, %v; want k/b alone", kvs, more, err)
		}
	}
	before := readTxns(b)
	read(ctx)
	if n := readTxns(b) - before; n != 5 {
		t.Fatalf("five reads without sharing began %d read transactions, want 5", n)
	}
	shared, end := ShareReads(ctx, b)
	before = readTxns(b)
	read(shared)
	if n := readTxns(b) - before; n != 1 {
		t.Fatalf("five shared reads began %d read transactions, want 1", n)
	}
	end()
	end() // a second end is harmless
	before = readTxns(b)
	read(shared)
	if n := readTxns(b) - before; n != 5 {
		t.Fatalf("five reads after end began %d read transactions, want 5 (each its own)", n)
	}
}

// A shared Get seeks one cursor: a miss is a miss even where the cursor
// lands on the next key, and reads in any order find their keys.
func TestShareReadsGetFindsExactKeys(t *testing.T) {
	b, _ := openT(t, Options{})
	mustTxn(t, b, nil, Put("ab", []byte("x")), Put("b", []byte("y")))
	shared, end := ShareReads(context.Background(), b)
	defer end()
	for _, c := range []struct{ key, want string }{{"b", "y"}, {"a", ""}, {"ab", "x"}, {"abc", ""}, {"c", ""}, {"b", "y"}} {
		kv, err := b.Get(shared, c.key)
		switch {
		case c.want == "" && !errors.Is(err, ErrNotFound):
			t.Fatalf("Get %q: %q, %v; want ErrNotFound", c.key, kv.Value, err)
		case c.want != "" && (err != nil || string(kv.Value) != c.want):
			t.Fatalf("Get %q: %q, %v; want %q", c.key, kv.Value, err, c.want)
		}
	}
}

// A commit that grows bbolt's map waits for every open read transaction,
// a shared one too, whose holder here is the committer itself: without
// the slow-commit watch this commit waits forever. It ends the shared
// transaction after slowCommit; the holder's next read begins another.
func TestACommitThatGrowsTheMapEndsSharedReads(t *testing.T) {
	ctx := context.Background()
	b, _ := openT(t, Options{})
	mustTxn(t, b, nil, Put("a", []byte("1")))
	shared, end := ShareReads(ctx, b)
	defer end()
	if _, err := b.Get(shared, "a"); err != nil {
		t.Fatal(err)
	}
	grow := make([]Op, 0, 16)
	for i := range 16 {
		grow = append(grow, Put(fmt.Sprintf("grow/%02d", i), incompressible(64<<10)))
	}
	size := func() int64 { s, _ := b.Stats(); return s.FileSize }
	before := size()
	done := make(chan error, 1)
	go func() { _, err := b.Txn(ctx, nil, grow); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a commit that grows the map waited on a shared read transaction for 20 s")
	}
	if after := size(); after < before+1<<20 {
		t.Fatalf("the file grew from %d to %d bytes: the commit did not grow the map", before, after)
	}
	if kv, err := b.Get(shared, "grow/15"); err != nil || len(kv.Value) != 64<<10 {
		t.Fatalf("a shared read after the commit: %d bytes, %v", len(kv.Value), err)
	}
}

// The reads of goroutines that share a context take turns (a bbolt cursor
// is not safe for concurrent use): run with -race.
func TestShareReadsAcrossGoroutines(t *testing.T) {
	b, _ := openT(t, Options{})
	mustTxn(t, b, nil, Put("a", []byte("1")), Put("b", []byte("2")))
	shared, end := ShareReads(context.Background(), b)
	defer end()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 100 {
				if _, err := b.Get(shared, []string{"a", "b"}[(i+j)%2]); err != nil {
					t.Error(err)
					return
				}
				if j%25 == 0 { // commits meanwhile
					if _, err := b.Txn(context.Background(), nil, []Op{Put(fmt.Sprintf("w/%d", i), []byte("x"))}); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

// A shared transaction left open does not keep Close waiting, and reads
// under it then say the store is closed.
func TestCloseEndsSharedReads(t *testing.T) {
	b, _ := openT(t, Options{})
	mustTxn(t, b, nil, Put("a", []byte("1")))
	shared, _ := ShareReads(context.Background(), b)
	if _, err := b.Get(shared, "a"); err != nil {
		t.Fatal(err)
	}
	closed := make(chan error, 1)
	go func() { closed <- b.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Close waited on a shared read transaction for 20 s")
	}
	if _, err := b.Get(shared, "a"); !errors.Is(err, ErrClosed) {
		t.Fatalf("a shared read after Close: %v, want ErrClosed", err)
	}
}
