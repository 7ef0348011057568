// Package storetest is the conformance suite of the store.Store contract:
// one set of tests that every backend (bbolt, etcd) runs against itself, so
// that the registry, the confirmation queue and the hub behave the same on
// either. A backend's test calls Run with a Harness.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// Harness is what the suite needs of a backend.
type Harness struct {
	// Open returns a fresh, empty store. The suite closes it; the harness
	// may close it again at cleanup (a second Close is ErrClosed).
	Open func(t *testing.T) store.Store
	// Compact makes every revision up to s's current one unavailable to
	// Watch by the backend's own means (etcd: compaction; bbolt: trimming
	// its change log), leaving the keys' latest state as it was.
	Compact func(t *testing.T, s store.Store)
}

// Run runs the suite, one subtest per part of the contract.
func Run(t *testing.T, h Harness) {
	for _, c := range []struct {
		name string
		test func(*testing.T, store.Store)
	}{
		{"GetListRevisions", testGetListRevisions},
		{"Range", testRange},
		{"NoOpTxn", testNoOpTxn},
		{"Conditions", testConditions},
		{"ConcurrentCAS", testConcurrentCAS},
		{"Limits", testLimits},
		{"WriteAll", testWriteAll},
		{"CanceledContext", testCanceledContext},
		{"WatchHistoryThenLive", testWatchHistoryThenLive},
		{"WatchResume", testWatchResume},
		{"WatchLatestState", testWatchLatestState},
		{"WatchEndsWithContext", testWatchEndsWithContext},
		{"WatchEndsOnClose", testWatchEndsOnClose},
		{"Closed", testClosed},
		{"Leases", testLeases},
	} {
		t.Run(c.name, func(t *testing.T) { c.test(t, h.Open(t)) })
	}
	t.Run("Compacted", func(t *testing.T) { testCompacted(t, h) })
}

var bg = context.Background()

func txn(t *testing.T, s store.Store, conds []store.Cond, ops ...store.Op) int64 {
	t.Helper()
	rev, err := s.Txn(bg, conds, ops)
	if err != nil {
		t.Fatalf("txn %v: %v", ops, err)
	}
	return rev
}

func rev(t *testing.T, s store.Store) int64 {
	t.Helper()
	r, err := s.Rev(bg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func del(key string) store.Op { return store.Op{Key: key, Delete: true} }

func testGetListRevisions(t *testing.T, s store.Store) {
	defer s.Close()
	r0 := rev(t, s)
	if _, err := s.Get(bg, "a"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("get of an absent key: %v, want ErrNotFound", err)
	}
	r1 := txn(t, s, nil, store.Put("a", []byte("1")), store.Put("b", []byte("2")))
	if r1 <= r0 {
		t.Fatalf("first txn at revision %d, not above the store's %d", r1, r0)
	}
	r2 := txn(t, s, nil, store.Put("a", []byte("3")))
	if r2 <= r1 || rev(t, s) != r2 {
		t.Fatalf("second txn at %d after %d, store at %d: revisions must grow and Rev be the last", r2, r1, rev(t, s))
	}
	kv, err := s.Get(bg, "a")
	if err != nil || kv.Key != "a" || string(kv.Value) != "3" || kv.CreateRev != r1 || kv.ModRev != r2 {
		t.Fatalf("get a = %+v, %v; want value 3 created at %d, modified at %d", kv, err, r1, r2)
	}
	r3 := txn(t, s, nil, store.Put("c/y", []byte("y")), store.Put("c/x", nil), store.Put("d", []byte("d")), store.Put("c", []byte("c")))
	list, err := s.List(bg, "c/")
	if err != nil || len(list) != 2 || list[0].Key != "c/x" || list[1].Key != "c/y" ||
		len(list[0].Value) != 0 || string(list[1].Value) != "y" || list[1].CreateRev != r3 || list[1].ModRev != r3 {
		t.Fatalf("list c/ = %+v, %v; want c/x (empty) and c/y in key order, at %d", list, err, r3)
	}
	if none, err := s.List(bg, "nothing/"); err != nil || len(none) != 0 {
		t.Fatalf("list of an absent prefix = %+v, %v; want nothing, no error", none, err)
	}
	all, err := s.List(bg, "")
	if err != nil || len(all) != 6 {
		t.Fatalf("list of everything: %d keys, %v; want 6", len(all), err)
	}
	for i := 1; i < len(all); i++ {
		if all[i-1].Key >= all[i].Key {
			t.Fatalf("list out of key order: %q before %q", all[i-1].Key, all[i].Key)
		}
	}
	r4 := txn(t, s, nil, del("a"))
	if _, err := s.Get(bg, "a"); r4 <= r3 || !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("delete at %d (after %d), then get: %v; want ErrNotFound", r4, r3, err)
	}
	// Recreating a deleted key starts a new life: CreateRev is the new one.
	r5 := txn(t, s, nil, store.Put("a", []byte("again")))
	if kv, _ := s.Get(bg, "a"); kv.CreateRev != r5 || kv.ModRev != r5 {
		t.Fatalf("recreated key %+v, want created and modified at %d", kv, r5)
	}
	// A returned value is the caller's: changing it changes nothing stored.
	kv, _ = s.Get(bg, "b")
	kv.Value[0] = 'X'
	if again, _ := s.Get(bg, "b"); string(again.Value) != "2" {
		t.Fatalf("changing a returned value changed the store: %q", again.Value)
	}
}

// testRange: pages of a prefix in key order, each at most the
// limit, more until the last; nothing outside the prefix, whatever after
// says; a page never repeats a key even when keys are written between pages.
func testRange(t *testing.T, b store.Store) {
	ctx := bg
	var ops []store.Op
	for i := range 25 {
		ops = append(ops, store.Put(fmt.Sprintf("m/%03d", i), []byte("v")))
	}
	txn(t, b, nil, append(ops, store.Put("l/z", []byte("before")), store.Put("n/a", []byte("after")), store.Put("m", []byte("bare")))...)

	var got []string
	after := ""
	for pages := 0; ; pages++ {
		kvs, more, err := b.Range(ctx, "m/", after, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(kvs) > 10 || pages > 3 {
			t.Fatalf("page %d: %d keys", pages, len(kvs))
		}
		for _, kv := range kvs {
			got = append(got, kv.Key)
		}
		if pages == 0 {
			// a write behind the cursor and one ahead of it, between pages
			txn(t, b, nil, store.Put("m/000a", []byte("late")), store.Put("m/999", []byte("late")))
		}
		if !more {
			break
		}
		after = kvs[len(kvs)-1].Key
	}
	if len(got) != 26 || got[0] != "m/000" || got[25] != "m/999" {
		t.Fatalf("paged %d keys %v", len(got), got)
	}
	seen := map[string]bool{}
	for _, k := range got {
		if seen[k] {
			t.Fatalf("key %s twice", k)
		}
		seen[k] = true
	}

	for _, c := range []struct {
		after string
		first string
		n     int
	}{
		{"", "m/000", 10},
		{"l/zzz", "m/000", 10}, // before the prefix: from its start
		{"a", "m/000", 10},
		{"n/", "", 0}, // past the prefix: empty, never the next prefix's keys
		{"zzz", "", 0},
		{"m/998", "m/999", 1},
		{"m/999", "", 0},
	} {
		kvs, more, err := b.Range(ctx, "m/", c.after, 10)
		if err != nil || len(kvs) != c.n || c.n > 0 && kvs[0].Key != c.first {
			t.Errorf("after %q: %d keys %v more %v, %v; want %d from %q", c.after, len(kvs), kvs, more, err, c.n, c.first)
		}
		for _, kv := range kvs {
			if kv.Key[:2] != "m/" {
				t.Errorf("after %q: %s is outside the prefix", c.after, kv.Key)
			}
		}
	}
	if kvs, more, err := b.Range(ctx, "m/", "m/023", 2); err != nil || len(kvs) != 2 || more {
		t.Errorf("exact last page: %d keys, more %v, %v", len(kvs), more, err)
	}
	if _, _, err := b.Range(ctx, "m/", "", 0); !errors.Is(err, store.ErrInvalidOp) {
		t.Errorf("limit 0: %v, want store.ErrInvalidOp", err)
	}
	b.Close()
	if _, _, err := b.Range(ctx, "m/", "", 1); !errors.Is(err, store.ErrClosed) {
		t.Errorf("closed: %v, want store.ErrClosed", err)
	}
}

func testNoOpTxn(t *testing.T, s store.Store) {
	defer s.Close()
	r1 := txn(t, s, nil, store.Put("a", []byte("1")))
	// "A Txn that changes nothing returns the current revision."
	if r := txn(t, s, []store.Cond{{Key: "a", ModRev: r1}}); r != r1 {
		t.Fatalf("txn without ops returned %d, want the current revision %d", r, r1)
	}
	if r := txn(t, s, nil, del("absent")); r != r1 {
		t.Fatalf("delete of an absent key returned %d, want %d", r, r1)
	}
	if r := rev(t, s); r != r1 {
		t.Fatalf("no-op txns moved the revision to %d from %d", r, r1)
	}
	if _, err := s.Txn(bg, []store.Cond{{Key: "a", ModRev: r1 + 7}}, nil); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("txn without ops and a failing condition: %v, want ErrConflict", err)
	}
}

func testConditions(t *testing.T, s store.Store) {
	defer s.Close()
	// "ModRev 0 means the key must not exist."
	r1 := txn(t, s, []store.Cond{{Key: "seat", ModRev: 0}}, store.Put("seat", []byte("spica")))
	_, err := s.Txn(bg, []store.Cond{{Key: "seat", ModRev: 0}}, []store.Op{store.Put("seat", []byte("heze"))})
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("second create: %v, want ErrConflict", err)
	}
	// One failing condition of two fails the whole: nothing is written.
	_, err = s.Txn(bg, []store.Cond{{Key: "seat", ModRev: r1}, {Key: "other", ModRev: r1}},
		[]store.Op{store.Put("seat", []byte("heze")), store.Put("new", nil)})
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("txn with one failing condition of two: %v, want ErrConflict", err)
	}
	if kv, _ := s.Get(bg, "seat"); string(kv.Value) != "spica" {
		t.Fatalf("a conflicting txn wrote: %q", kv.Value)
	}
	if _, err := s.Get(bg, "new"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a conflicting txn created a key: %v", err)
	}
	if r := rev(t, s); r != r1 {
		t.Fatalf("conflicts moved the revision to %d from %d", r, r1)
	}
	r2 := txn(t, s, []store.Cond{{Key: "seat", ModRev: r1}, {Key: "other", ModRev: 0}}, store.Put("seat", []byte("heze")))
	if r2 <= r1 {
		t.Fatalf("CAS with the right revisions at %d, not above %d", r2, r1)
	}
	// A stale revision conflicts; a deleted key is absent again (0).
	if _, err := s.Txn(bg, []store.Cond{{Key: "seat", ModRev: r1}}, []store.Op{del("seat")}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("CAS with a stale revision: %v, want ErrConflict", err)
	}
	txn(t, s, []store.Cond{{Key: "seat", ModRev: r2}}, del("seat"))
	txn(t, s, []store.Cond{{Key: "seat", ModRev: 0}}, store.Put("seat", []byte("alkaid")))
}

// Concurrent read-decide-commit loops lose no update: each increment is
// committed once, under its own revision.
func testConcurrentCAS(t *testing.T, s store.Store) {
	defer s.Close()
	const callers, each = 8, 10
	revs := make(chan int64, callers*each)
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	for range callers {
		wg.Go(func() {
			for done := 0; done < each; {
				kv, err := s.Get(bg, "counter")
				n := 0
				switch {
				case errors.Is(err, store.ErrNotFound):
				case err != nil:
					errs <- err
					return
				default:
					fmt.Sscan(string(kv.Value), &n)
				}
				r, err := s.Txn(bg, []store.Cond{{Key: "counter", ModRev: kv.ModRev}}, []store.Op{store.Put("counter", fmt.Appendf(nil, "%d", n+1))})
				switch {
				case errors.Is(err, store.ErrConflict):
					continue
				case err != nil:
					errs <- err
					return
				}
				revs <- r
				done++
			}
		})
	}
	wg.Wait()
	close(errs)
	close(revs)
	for err := range errs {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	for r := range revs {
		if seen[r] {
			t.Fatalf("two commits at revision %d", r)
		}
		seen[r] = true
	}
	if kv, err := s.Get(bg, "counter"); err != nil || string(kv.Value) != fmt.Sprint(callers*each) {
		t.Fatalf("counter = %q, %v; want %d", kv.Value, err, callers*each)
	}
}

// "etcd's limits (128 ops, 1.5 MiB per txn) checked up front with a named
// error" — on every backend, so a use case cannot pass on one and fail on
// the other.
func testLimits(t *testing.T, s store.Store) {
	defer s.Close()
	r0 := rev(t, s)
	puts := func(n, size int) []store.Op {
		ops := make([]store.Op, n)
		for i := range ops {
			ops[i] = store.Put(fmt.Sprintf("k/%03d", i), make([]byte, size))
		}
		return ops
	}
	conds := make([]store.Cond, store.MaxTxnOps+1)
	for i := range conds {
		conds[i] = store.Cond{Key: fmt.Sprintf("c/%03d", i)}
	}
	for _, c := range []struct {
		name  string
		conds []store.Cond
		ops   []store.Op
		want  error
	}{
		{"empty key", nil, []store.Op{store.Put("", []byte("x"))}, store.ErrInvalidOp},
		{"empty condition key", []store.Cond{{}}, puts(1, 1), store.ErrInvalidOp},
		{"key over MaxKeyBytes", nil, []store.Op{store.Put(strings.Repeat("k", store.MaxKeyBytes+1), nil)}, store.ErrInvalidOp},
		{"writes over MaxTxnOps", nil, puts(store.MaxTxnOps+1, 1), store.ErrTxnTooLarge},
		{"conditions over MaxTxnOps", conds, puts(1, 1), store.ErrTxnTooLarge},
		{"bytes over MaxTxnBytes", nil, puts(2, store.MaxTxnBytes/2), store.ErrTxnTooLarge},
	} {
		if _, err := s.Txn(bg, c.conds, c.ops); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	if r := rev(t, s); r != r0 {
		t.Fatalf("refused transactions moved the revision to %d from %d", r, r0)
	}
	// At the limits, a transaction commits.
	txn(t, s, conds[:store.MaxTxnOps], puts(store.MaxTxnOps, 1)...)
	big := store.Put("big", make([]byte, store.MaxTxnBytes-len("big")))
	txn(t, s, nil, big)
	if kv, err := s.Get(bg, "big"); err != nil || len(kv.Value) != len(big.Value) {
		t.Fatalf("value at the byte limit: %d bytes, %v", len(kv.Value), err)
	}
	if list, _ := s.List(bg, "k/"); len(list) != store.MaxTxnOps {
		t.Fatalf("a transaction of %d writes stored %d", store.MaxTxnOps, len(list))
	}
}

// WriteAll splits independent writes by the limits and commits them all.
func testWriteAll(t *testing.T, s store.Store) {
	defer s.Close()
	ops := make([]store.Op, 3*store.MaxTxnOps+5)
	for i := range ops {
		ops[i] = store.Put(fmt.Sprintf("p/%04d", i), make([]byte, 10))
	}
	// Two values of half the byte limit need a transaction each.
	ops = append(ops, store.Put("p/big1", make([]byte, store.MaxTxnBytes/2)), store.Put("p/big2", make([]byte, store.MaxTxnBytes/2)))
	r0 := rev(t, s)
	last, err := store.WriteAll(bg, s, ops)
	if err != nil {
		t.Fatal(err)
	}
	if last <= r0 || last != rev(t, s) {
		t.Fatalf("WriteAll returned %d; the store is at %d (was %d)", last, rev(t, s), r0)
	}
	if list, _ := s.List(bg, "p/"); len(list) != len(ops) {
		t.Fatalf("WriteAll of %d writes stored %d", len(ops), len(list))
	}
	if _, err := store.WriteAll(bg, s, []store.Op{store.Put("", nil)}); !errors.Is(err, store.ErrInvalidOp) {
		t.Fatalf("WriteAll of an invalid write: %v, want ErrInvalidOp", err)
	}
}

func testCanceledContext(t *testing.T, s store.Store) {
	defer s.Close()
	ctx, cancel := context.WithCancel(bg)
	cancel()
	if _, err := s.Txn(ctx, nil, []store.Op{store.Put("a", nil)}); !errors.Is(err, context.Canceled) {
		t.Errorf("txn with a canceled context: %v", err)
	}
	if _, err := s.Get(bg, "a"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a txn with a canceled context wrote: %v", err)
	}
	if _, err := s.Get(ctx, "a"); !errors.Is(err, context.Canceled) {
		t.Errorf("get with a canceled context: %v", err)
	}
	if _, err := s.List(ctx, ""); !errors.Is(err, context.Canceled) {
		t.Errorf("list with a canceled context: %v", err)
	}
	if _, err := s.Watch(ctx, "", 0); !errors.Is(err, context.Canceled) {
		t.Errorf("watch with a canceled context: %v", err)
	}
}

// next receives one event or fails after a while.
func next(t *testing.T, ch <-chan store.Event) store.Event {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("watch channel closed early")
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10s")
	}
	return store.Event{}
}

// collect receives events up to the end of revision last, checking that
// revisions never go back and that Last marks exactly the end of each.
func collect(t *testing.T, ch <-chan store.Event, last int64) []store.Event {
	t.Helper()
	var evs []store.Event
	for {
		ev := next(t, ch)
		if n := len(evs); n > 0 {
			prev := evs[n-1]
			switch {
			case ev.Rev < prev.Rev:
				t.Fatalf("event at revision %d after one at %d", ev.Rev, prev.Rev)
			case ev.Rev > prev.Rev && !prev.Last:
				t.Fatalf("revision %d ended without Last: %+v", prev.Rev, prev)
			case ev.Rev == prev.Rev && prev.Last:
				t.Fatalf("Last on %+v, yet revision %d goes on with %+v", prev, prev.Rev, ev)
			}
		}
		evs = append(evs, ev)
		if ev.Rev > last {
			t.Fatalf("event %+v beyond revision %d", ev, last)
		}
		if ev.Rev == last && ev.Last {
			return evs
		}
	}
}

func sameEvent(a, b store.Event) bool {
	return a.Rev == b.Rev && a.Key == b.Key && bytes.Equal(a.Value, b.Value) && a.Delete == b.Delete && a.Last == b.Last
}

func testWatchHistoryThenLive(t *testing.T, s store.Store) {
	defer s.Close()
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	r0 := rev(t, s)
	r1 := txn(t, s, nil, store.Put("p/b", []byte("2")), store.Put("q/x", nil), store.Put("p/c", []byte("3")))
	r2 := txn(t, s, nil, store.Put("q/y", nil))
	r3 := txn(t, s, nil, del("p/b"))
	ch, err := s.Watch(ctx, "p/", r0)
	if err != nil {
		t.Fatal(err)
	}
	// q/ is not watched; r2 wrote only there. Last marks the end of each
	// revision under the prefix.
	want := []store.Event{
		{Rev: r1, Key: "p/b", Value: []byte("2")},
		{Rev: r1, Key: "p/c", Value: []byte("3"), Last: true},
		{Rev: r3, Key: "p/b", Delete: true, Last: true},
	}
	got := collect(t, ch, r3)
	// A backend may leave out a put that a later write replaced before the
	// watcher read it (the later event follows): p/b's first put.
	if len(got) == len(want)-1 {
		want = want[1:]
	}
	if len(got) != len(want) {
		t.Fatalf("history %+v, want %+v (r2 = %d wrote only outside the prefix)", got, want, r2)
	}
	for i := range want {
		if !sameEvent(got[i], want[i]) {
			t.Fatalf("event %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	// Live: a concurrent writer's transactions arrive in revision order,
	// whole, filtered by prefix.
	revs := make(chan int64, 50)
	go func() {
		defer close(revs)
		for i := range 50 {
			r, err := s.Txn(ctx, nil, []store.Op{store.Put(fmt.Sprintf("p/%03d/a", i), []byte{byte(i)}), store.Put("q/noise", nil), store.Put(fmt.Sprintf("p/%03d/b", i), nil)})
			if err != nil {
				return
			}
			revs <- r
		}
	}()
	i := 0
	for r := range revs {
		got := collect(t, ch, r)
		want := []store.Event{{Rev: r, Key: fmt.Sprintf("p/%03d/a", i), Value: []byte{byte(i)}}, {Rev: r, Key: fmt.Sprintf("p/%03d/b", i), Last: true}}
		if len(got) != 2 || !sameEvent(got[0], want[0]) || !sameEvent(got[1], want[1]) {
			t.Fatalf("live transaction %d: %+v, want %+v", i, got, want)
		}
		i++
	}
	if i != 50 {
		t.Fatalf("the writer committed %d of 50", i)
	}
}

// Resuming from any revision neither misses nor repeats an event.
func testWatchResume(t *testing.T, s store.Store) {
	defer s.Close()
	type write struct {
		rev int64
		key string
	}
	hist := []write{{rev: rev(t, s)}}
	for i := 1; i <= 30; i++ {
		key := fmt.Sprintf("k%02d", i)
		hist = append(hist, write{txn(t, s, nil, store.Put(key, nil)), key})
	}
	for _, from := range []int64{hist[0].rev, hist[1].rev, hist[15].rev, hist[29].rev, hist[30].rev} {
		ctx, cancel := context.WithCancel(bg)
		ch, err := s.Watch(ctx, "", from)
		if err != nil {
			t.Fatal(err)
		}
		live := fmt.Sprintf("live/%d", from)
		hist = append(hist, write{txn(t, s, nil, store.Put(live, nil)), live})
		for _, w := range hist[1:] {
			if w.rev <= from {
				continue
			}
			if ev := next(t, ch); !sameEvent(ev, store.Event{Rev: w.rev, Key: w.key, Last: true}) {
				t.Fatalf("from revision %d: got %+v, want %s at %d", from, ev, w.key, w.rev)
			}
		}
		cancel()
		waitClosed(t, ch, "the watch's context ended")
	}
}

// Whatever a backend leaves out, a watcher ends with each key's latest
// state: a key written many times arrives last with its latest value, a
// deleted key as its delete.
func testWatchLatestState(t *testing.T, s store.Store) {
	defer s.Close()
	r0 := rev(t, s)
	for i := 1; i <= 20; i++ {
		txn(t, s, nil, store.Put("k", []byte{byte(i)}))
	}
	txn(t, s, nil, store.Put("gone", []byte("x")))
	last := txn(t, s, nil, del("gone"))
	ch, err := s.Watch(bg, "", r0)
	if err != nil {
		t.Fatal(err)
	}
	state := map[string]store.Event{}
	for _, ev := range collect(t, ch, last) {
		state[ev.Key] = ev
	}
	if k := state["k"]; k.Delete || !bytes.Equal(k.Value, []byte{20}) {
		t.Fatalf("k ends as %+v, want value 20", k)
	}
	if g := state["gone"]; !g.Delete || g.Rev != last {
		t.Fatalf("gone ends as %+v, want its delete at %d", g, last)
	}
}

func testWatchEndsWithContext(t *testing.T, s store.Store) {
	defer s.Close()
	ctx, cancel := context.WithCancel(bg)
	ch, err := s.Watch(ctx, "", rev(t, s))
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	waitClosed(t, ch, "the watch's context ended")
}

func testWatchEndsOnClose(t *testing.T, s store.Store) {
	ch, err := s.Watch(bg, "", rev(t, s))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, ch, "Close")
}

func waitClosed(t *testing.T, ch <-chan store.Event, after string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-timeout:
			t.Fatalf("watch channel still open 10s after %s", after)
		}
	}
}

func testClosed(t *testing.T, s store.Store) {
	txn(t, s, nil, store.Put("a", nil))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(bg, "a"); !errors.Is(err, store.ErrClosed) {
		t.Errorf("get after close: %v", err)
	}
	if _, err := s.List(bg, ""); !errors.Is(err, store.ErrClosed) {
		t.Errorf("list after close: %v", err)
	}
	if _, err := s.Txn(bg, nil, []store.Op{store.Put("a", nil)}); !errors.Is(err, store.ErrClosed) {
		t.Errorf("txn after close: %v", err)
	}
	if _, err := s.Rev(bg); !errors.Is(err, store.ErrClosed) {
		t.Errorf("rev after close: %v", err)
	}
	if _, err := s.Watch(bg, "", 0); !errors.Is(err, store.ErrClosed) {
		t.Errorf("watch after close: %v", err)
	}
	if err := s.Close(); !errors.Is(err, store.ErrClosed) {
		t.Errorf("second close: %v", err)
	}
}

// A watch from below the kept history is ErrCompacted — the hub's resync
// case — while the latest state stays readable and a watch from the
// current revision goes on.
func testCompacted(t *testing.T, h Harness) {
	s := h.Open(t)
	defer s.Close()
	r0 := rev(t, s)
	for i := range 5 {
		txn(t, s, nil, store.Put(fmt.Sprintf("k%d", i), []byte{byte(i)}))
	}
	txn(t, s, nil, del("k0"))
	h.Compact(t, s)
	if _, err := s.Watch(bg, "", r0); !errors.Is(err, store.ErrCompacted) {
		t.Fatalf("watch from %d after compaction: %v, want ErrCompacted", r0, err)
	}
	list, err := s.List(bg, "k")
	if err != nil || len(list) != 4 || list[0].Key != "k1" || list[3].Value[0] != 4 {
		t.Fatalf("after compaction list = %+v, %v; want k1..k4", list, err)
	}
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	ch, err := s.Watch(ctx, "", rev(t, s))
	if err != nil {
		t.Fatalf("watch from the current revision after compaction: %v", err)
	}
	r := txn(t, s, nil, store.Put("k9", nil))
	if ev := next(t, ch); ev.Rev != r || ev.Key != "k9" {
		t.Fatalf("after compaction got %+v, want k9 at %d", ev, r)
	}
}
