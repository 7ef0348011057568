package boltstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// next receives one event or fails after a while.
func next(t *testing.T, ch <-chan store.Event) store.Event {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("watch channel closed early")
		}
		return ev
	case <-time.After(5 * time.Second):
		t.Fatal("no event within 5s")
	}
	return store.Event{}
}

// Resuming from any revision neither misses nor repeats an event.
func TestWatchResume(t *testing.T) {
	ctx := context.Background()
	b, _ := openT(t, Options{})
	for i := 1; i <= 600; i++ {
		mustTxn(t, b, nil, store.Put(fmt.Sprintf("k%d", i), nil))
	}
	for _, from := range []int64{0, 1, 299, 599, 600, 601} {
		wctx, cancel := context.WithCancel(ctx)
		ch, err := b.Watch(wctx, "", from)
		if err != nil {
			t.Fatal(err)
		}
		cur, _ := b.Rev(ctx)
		for rev := from + 1; rev <= cur; rev++ {
			want := fmt.Sprintf("k%d", rev)
			if rev > 600 {
				want = fmt.Sprintf("live/%d", rev)
			}
			if ev := next(t, ch); ev.Rev != rev || ev.Key != want {
				t.Fatalf("from %d: got %+v, want %s at revision %d", from, ev, want, rev)
			}
		}
		live := fmt.Sprintf("live/%d", cur+1)
		rev := mustTxn(t, b, nil, store.Put(live, nil))
		if ev := next(t, ch); ev.Key != live || ev.Rev != rev {
			t.Fatalf("from %d: after history got %+v, want the live event at %d", from, ev, rev)
		}
		cancel()
		for range ch {
		}
	}
}

func TestWatchCompacted(t *testing.T) {
	ctx := context.Background()
	b, _ := openT(t, Options{WatchHistory: 10})
	for i := 1; i <= 30; i++ {
		mustTxn(t, b, nil, store.Put(fmt.Sprintf("k%d", i), []byte{byte(i)}))
	}
	st, _ := b.Stats()
	if st.LogEntries != 10 || st.Compacted != 20 {
		t.Fatalf("stats %+v: want 10 entries kept, revisions up to 20 trimmed", st)
	}
	if _, err := b.Watch(ctx, "", 19); !errors.Is(err, store.ErrCompacted) {
		t.Fatalf("watch below history: %v, want ErrCompacted", err)
	}
	ch, err := b.Watch(ctx, "", 20)
	if err != nil {
		t.Fatal(err)
	}
	if ev := next(t, ch); ev.Rev != 21 {
		t.Fatalf("first kept event %+v, want revision 21", ev)
	}
	// A revision is trimmed whole: one Txn of 25 ops is kept entire even
	// beyond the history size, since it is the newest.
	ops := make([]store.Op, 25)
	for i := range ops {
		ops[i] = store.Put(fmt.Sprintf("big/%02d", i), nil)
	}
	rev := mustTxn(t, b, nil, ops...)
	st, _ = b.Stats()
	if st.LogEntries != 25 || st.Compacted != rev-1 {
		t.Fatalf("after a big txn %+v: want its 25 entries and nothing older", st)
	}
}

// A watcher that fell behind the trimmed history is told so by a closed
// channel (its ctx still live), never by a silent gap.
func TestWatchSlowWatcherCompactedCloses(t *testing.T) {
	ctx := context.Background()
	b, _ := openT(t, Options{WatchHistory: 10})
	ch, err := b.Watch(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 200; i++ {
		mustTxn(t, b, nil, store.Put(fmt.Sprintf("k%d", i), nil))
	}
	var last int64
	for ev := range ch {
		if ev.Rev != last+1 {
			t.Fatalf("gap: %d after %d", ev.Rev, last)
		}
		last = ev.Rev
	}
	if last == 200 {
		t.Skip("the watcher kept up; nothing to observe")
	}
	if _, err := b.Watch(ctx, "", last); !errors.Is(err, store.ErrCompacted) {
		t.Fatalf("re-watch from %d: %v, want ErrCompacted", last, err)
	}
}

// The change log names keys, not values: a key written many times before a
// watcher reads it arrives once, with its latest value and revision, and a
// put deleted since arrives as the delete.
func TestWatchDeliversLatestValue(t *testing.T) {
	ctx := context.Background()
	b, _ := openT(t, Options{})
	for i := 1; i <= 30; i++ {
		mustTxn(t, b, nil, store.Put("k", []byte{byte(i)}))
	}
	mustTxn(t, b, nil, store.Put("gone", []byte("x")))
	mustTxn(t, b, nil, store.Op{Key: "gone", Delete: true})
	ch, err := b.Watch(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []store.Event{{Rev: 30, Key: "k", Value: []byte{30}}, {Rev: 32, Key: "gone", Delete: true}} {
		if ev := next(t, ch); ev.Rev != want.Rev || ev.Key != want.Key || string(ev.Value) != string(want.Value) || ev.Delete != want.Delete {
			t.Fatalf("event %+v, want %+v", ev, want)
		}
	}
}

// "The change log is bounded by bytes as well as entries": long keys trim
// it by bytes long before the entry bound.
func TestWatchHistoryBoundedByBytes(t *testing.T) {
	const bound = 64 << 10
	b, _ := openT(t, Options{WatchHistoryBytes: bound})
	key := strings.Repeat("k", 1000)
	for i := 0; i < 200; i++ {
		mustTxn(t, b, nil, store.Put(fmt.Sprintf("%s/%03d", key, i), []byte("v")))
	}
	st, err := b.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.LogBytes > bound || st.LogBytes < bound-2000 || st.Compacted == 0 || st.LogEntries >= 200 {
		t.Fatalf("stats %+v: want the log trimmed to at most %d bytes", st, bound)
	}
	if _, err := b.Watch(context.Background(), "", st.Compacted-1); !errors.Is(err, store.ErrCompacted) {
		t.Fatalf("watch below the kept history: %v, want ErrCompacted", err)
	}
}
