package boltstore

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// TestGroupCommitCounter: 64 goroutines each increment one counter with
// read + CAS + retry. Serial semantics inside shared commits must give the
// exact count, and every successful Txn its own, strictly increasing revision.
func TestGroupCommitCounter(t *testing.T) {
	const workers, each = 64, 10
	ctx := context.Background()
	b, _ := openT(t, Options{})
	var mu sync.Mutex
	seen := map[int64]bool{}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var last int64
			for i := 0; i < each; {
				kv, err := b.Get(ctx, "counter")
				n := 0
				if err == nil {
					n, _ = strconv.Atoi(string(kv.Value))
				} else if !errors.Is(err, store.ErrNotFound) {
					errs <- err
					return
				}
				rev, err := b.Txn(ctx, []store.Cond{{Key: "counter", ModRev: kv.ModRev}},
					[]store.Op{store.Put("counter", []byte(strconv.Itoa(n+1)))})
				if errors.Is(err, store.ErrConflict) {
					continue
				}
				if err != nil {
					errs <- err
					return
				}
				if rev <= last {
					errs <- errors.New("revisions of one caller not increasing")
				}
				last = rev
				mu.Lock()
				if seen[rev] {
					errs <- errors.New("revision " + strconv.FormatInt(rev, 10) + " given twice")
				}
				seen[rev] = true
				mu.Unlock()
				i++
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	kv, err := b.Get(ctx, "counter")
	if err != nil || string(kv.Value) != strconv.Itoa(workers*each) {
		t.Fatalf("counter = %q, %v; want %d", kv.Value, err, workers*each)
	}
	if kv.ModRev != workers*each || len(seen) != workers*each {
		t.Fatalf("final revision %d, %d distinct; want %d of each", kv.ModRev, len(seen), workers*each)
	}
	st, _ := b.Stats()
	t.Logf("%d txns in %d commits", st.Txns, st.Commits)
}

// TestGroupCommitShares: many blind writers must share commits, and each
// caller's conflict fails only itself.
func TestGroupCommitShares(t *testing.T) {
	const workers = 64
	ctx := context.Background()
	b, _ := openT(t, Options{})
	var wg sync.WaitGroup
	var conflicts, wins sync.Map
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := "k" + strconv.Itoa(w)
			for i := 0; i < 20; i++ {
				if _, err := b.Txn(ctx, nil, []store.Op{store.Put(key, []byte{byte(i)})}); err != nil {
					t.Error(err)
				}
			}
			// Every worker races to create the same key: exactly one wins.
			_, err := b.Txn(ctx, []store.Cond{{Key: "winner", ModRev: 0}}, []store.Op{store.Put("winner", []byte(key))})
			switch {
			case err == nil:
				wins.Store(key, true)
			case errors.Is(err, store.ErrConflict):
				conflicts.Store(key, true)
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	n := 0
	wins.Range(func(any, any) bool { n++; return true })
	if n != 1 {
		t.Fatalf("%d winners of the create race, want 1", n)
	}
	st, _ := b.Stats()
	if st.Txns != workers*20+1 || st.Rev != st.Txns {
		t.Fatalf("stats %+v: want %d txns and as many revisions", st, workers*20+1)
	}
	if st.Commits >= st.Txns {
		t.Errorf("no commit was shared: %d txns in %d commits", st.Txns, st.Commits)
	}
	t.Logf("%d txns in %d commits", st.Txns, st.Commits)
}

// TestCloseWaitsForCommits: transactions racing Close either commit
// durably or fail with ErrClosed, never anything else.
func TestCloseWaitsForCommits(t *testing.T) {
	b, path := openT(t, Options{})
	ctx := context.Background()
	var wg sync.WaitGroup
	var mu sync.Mutex
	committed := map[string]bool{}
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := "k" + strconv.Itoa(w)
			_, err := b.Txn(ctx, nil, []store.Op{store.Put(key, nil)})
			switch {
			case err == nil:
				mu.Lock()
				committed[key] = true
				mu.Unlock()
			case !errors.Is(err, store.ErrClosed):
				t.Error(err)
			}
		}()
	}
	b.Close()
	wg.Wait()
	b2, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	for key := range committed {
		if _, err := b2.Get(ctx, key); err != nil {
			t.Errorf("committed %s lost: %v", key, err)
		}
	}
}
