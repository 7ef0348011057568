package storecopy_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore"
	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore/etcdtest"
	"github.com/virgo-hub/virgo-tui/internal/store/storecopy"
)

func openBolt(t *testing.T) *boltstore.Store {
	t.Helper()
	b, err := boltstore.Open(filepath.Join(t.TempDir(), "virgo.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// fill writes n keys, among them values large enough that the copy must
// split its pages by bytes as well as by count.
func fill(t *testing.T, s store.Store, n int) {
	t.Helper()
	ops := make([]store.Op, n)
	for i := range ops {
		v := []byte(fmt.Sprintf("value %d", i))
		if i%50 == 0 {
			v = bytes.Repeat([]byte{byte(i)}, 200<<10)
		}
		ops[i] = store.Put(fmt.Sprintf("persona/%04d", i), v)
	}
	if _, err := store.WriteAll(context.Background(), s, ops); err != nil {
		t.Fatal(err)
	}
}

// "copies an installation, verifying counts and hashes": bbolt into etcd,
// and back into a new bbolt file; all three hold the same keys and values.
func TestCopyBoltToEtcdAndBack(t *testing.T) {
	ctx := context.Background()
	m, err := etcdtest.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	src := openBolt(t)
	fill(t, src, 300)
	e, err := etcdstore.Open(ctx, etcdstore.Options{Endpoints: []string{m.Endpoint}, Prefix: "virgo/copy"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	rep, err := storecopy.Copy(ctx, src, e, storecopy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Source.Keys != 300 || rep.Destination != (storecopy.Summary{Keys: 300, Bytes: rep.Source.Bytes, SHA256: rep.Source.SHA256, Revision: rep.Destination.Revision}) {
		t.Fatalf("bbolt to etcd: %+v", rep)
	}
	kv, err := e.Get(ctx, "persona/0050")
	if err != nil || !bytes.Equal(kv.Value, bytes.Repeat([]byte{50}, 200<<10)) {
		t.Fatalf("a large value on etcd: %d bytes, %v", len(kv.Value), err)
	}
	back := openBolt(t)
	rep2, err := storecopy.Copy(ctx, e, back, storecopy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep2.Destination.SHA256 != rep.Source.SHA256 || rep2.Destination.Keys != 300 {
		t.Fatalf("etcd back to bbolt: %+v, the original %+v", rep2, rep.Source)
	}
}

// "refuses a non-empty destination (named error) unless told otherwise":
// nothing is written into it; told to replace, its keys go, and the copy
// holds the source's keys only.
func TestCopyIntoANonEmptyStore(t *testing.T) {
	ctx := context.Background()
	src, dst := openBolt(t), openBolt(t)
	fill(t, src, 10)
	if _, err := dst.Txn(ctx, nil, []store.Op{store.Put("zz/other", []byte("another installation"))}); err != nil {
		t.Fatal(err)
	}
	before, err := storecopy.Summarize(ctx, dst)
	if err != nil {
		t.Fatal(err)
	}
	_, err = storecopy.Copy(ctx, src, dst, storecopy.Options{})
	if !errors.Is(err, storecopy.ErrDestinationNotEmpty) {
		t.Fatalf("a copy into a non-empty store: %v", err)
	}
	if after, _ := storecopy.Summarize(ctx, dst); after != before {
		t.Fatalf("the refused copy changed the destination: %+v, was %+v", after, before)
	}
	rep, err := storecopy.Copy(ctx, src, dst, storecopy.Options{Replace: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Replaced != 1 || rep.Destination.Keys != 10 {
		t.Fatalf("replacing: %+v", rep)
	}
	if _, err := dst.Get(ctx, "zz/other"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the replaced key: %v", err)
	}
}

// The hash tells stores apart that hold the same count of keys and bytes:
// a changed value, or a boundary moved between a key and its value.
func TestSummarizeTellsContentsApart(t *testing.T) {
	ctx := context.Background()
	sum := func(kvs ...string) storecopy.Summary {
		s := openBolt(t)
		for i := 0; i < len(kvs); i += 2 {
			if _, err := s.Txn(ctx, nil, []store.Op{store.Put(kvs[i], []byte(kvs[i+1]))}); err != nil {
				t.Fatal(err)
			}
		}
		r, err := storecopy.Summarize(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a, b, c := sum("k", "ab", "l", "c"), sum("k", "ab", "l", "d"), sum("ka", "b", "l", "c")
	if a.Keys != 2 || a.Keys != b.Keys || a.Bytes != b.Bytes || a.SHA256 == b.SHA256 || a.Bytes != c.Bytes || a.SHA256 == c.SHA256 {
		t.Fatalf("summaries %+v %+v %+v", a, b, c)
	}
}

// busySource is a source that a hub still writes to: after the copy's
// first read, another key arrives.
type busySource struct {
	store.Store
	wrote bool
}

func (s *busySource) Range(ctx context.Context, prefix, after string, limit int) ([]store.KV, bool, error) {
	kvs, more, err := s.Store.Range(ctx, prefix, after, limit)
	if !s.wrote {
		s.wrote = true
		_, err = s.Store.Txn(ctx, nil, []store.Op{store.Put("persona/late", []byte("registered during the copy"))})
	}
	return kvs, more, err
}

// A source that changes during the copy fails the check, with both sides'
// counts, as ErrMismatch.
func TestCopyOfAChangingSourceFailsItsCheck(t *testing.T) {
	src := openBolt(t)
	fill(t, src, 5)
	rep, err := storecopy.Copy(context.Background(), &busySource{Store: src}, openBolt(t), storecopy.Options{})
	if !errors.Is(err, storecopy.ErrMismatch) || rep.Source.Keys != 6 || rep.Destination.Keys != 5 {
		t.Fatalf("copy of a changing source: %+v, %v", rep, err)
	}
}

// Keys on a lease (a live hub's presence and announcement, election
// candidates) are the source's hubs' run-time state, not the
// installation's: the copy leaves them out, so none becomes a permanent key
// that outlives its hub (a dead hub listed for good, an election that never
// moves past a candidate), and the check compares what is copied.
func TestCopyLeavesOutKeysOnALease(t *testing.T) {
	ctx := context.Background()
	m, err := etcdtest.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	e, err := etcdstore.Open(ctx, etcdstore.Options{Endpoints: []string{m.Endpoint}, Prefix: "virgo/leased"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	fill(t, e, 10)
	lease, err := e.Grant(ctx, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer lease.Revoke(ctx)
	if _, err := e.Txn(ctx, nil, []store.Op{
		store.PutOnLease("hubs/e1", []byte(`{"host":"h1"}`), lease.ID()),
		store.PutOnLease("presence/p1", []byte(`{"id":"p1"}`), lease.ID()),
	}); err != nil {
		t.Fatal(err)
	}
	dst := openBolt(t)
	rep, err := storecopy.Copy(ctx, e, dst, storecopy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"hubs/e1", "presence/p1"} {
		if _, err := dst.Get(ctx, k); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s, on a lease in the source, was copied as a plain key (%v)", k, err)
		}
	}
	if rep.Leased != 2 || rep.Source.Keys != 10 || rep.Destination.Keys != 10 || rep.Destination.SHA256 != rep.Source.SHA256 {
		t.Fatalf("report %+v; want 10 keys on each side and 2 left out on a lease", rep)
	}
}
