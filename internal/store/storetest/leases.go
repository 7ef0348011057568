package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// testLeases is the optional part of the contract, store.Leaser: a store
// that implements it deletes a key attached to a lease when the lease ends,
// and a watcher sees that delete; a store that does not refuses an op
// naming a lease.
func testLeases(t *testing.T, s store.Store) {
	defer s.Close()
	l, ok := s.(store.Leaser)
	if !ok {
		testNoLeases(t, s)
		return
	}
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	// Two seconds, not one: a keep-alive goes every third of the TTL, and
	// with 1 s this test failed now and then on a loaded 2-core machine (it
	// passed idle): a stall of a few hundred milliseconds lost a lease that
	// was being kept alive.
	lease, err := l.Grant(bg, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if lease.ID() == 0 || lease.TTL() < 2*time.Second {
		t.Fatalf("granted lease %x with TTL %s; want an id and at least the 2s asked for", lease.ID(), lease.TTL())
	}
	r0 := rev(t, s)
	ch, err := s.Watch(ctx, "", r0)
	if err != nil {
		t.Fatal(err)
	}
	r1 := txn(t, s, nil, store.PutOnLease("live/a", []byte("a"), lease.ID()), store.Put("plain", []byte("p")))
	collect(t, ch, r1)
	// A key names the lease it lives on; a plain key none.
	if kv, err := s.Get(bg, "live/a"); err != nil || kv.Lease != lease.ID() {
		t.Fatalf("a key on lease %x reads as %+v, %v; want its lease named", lease.ID(), kv, err)
	}
	if kvs, _, err := s.Range(bg, "plain", "", 1); err != nil || len(kvs) != 1 || kvs[0].Lease != 0 {
		t.Fatalf("a key on no lease reads as %+v, %v; want lease 0", kvs, err)
	}
	// A lease kept alive outlives its TTL.
	time.Sleep(lease.TTL() + 500*time.Millisecond)
	if kv, err := s.Get(bg, "live/a"); err != nil || string(kv.Value) != "a" {
		t.Fatalf("a key on a lease kept alive, after its TTL: %+v, %v; want it still there", kv, err)
	}
	select {
	case <-lease.Done():
		t.Fatal("a lease kept alive reported lost")
	default:
	}
	if err := lease.Revoke(bg); err != nil {
		t.Fatal(err)
	}
	ev := next(t, ch)
	if ev.Key != "live/a" || !ev.Delete || ev.Rev <= r1 {
		t.Fatalf("after the revoke the watcher got %+v; want the delete of live/a after revision %d", ev, r1)
	}
	if _, err := s.Get(bg, "live/a"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a key on a revoked lease: %v; want ErrNotFound", err)
	}
	if kv, err := s.Get(bg, "plain"); err != nil || string(kv.Value) != "p" {
		t.Fatalf("a key on no lease after a revoke: %+v, %v; want it kept", kv, err)
	}
	select {
	case <-lease.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("a revoked lease's Done not closed")
	}
	if _, err := s.Txn(bg, nil, []store.Op{store.PutOnLease("live/b", nil, lease.ID())}); !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("a put on a revoked lease: %v; want ErrLeaseLost", err)
	}
	if _, err := s.Txn(bg, nil, []store.Op{{Key: "plain", Delete: true, Lease: lease.ID()}}); !errors.Is(err, store.ErrInvalidOp) {
		t.Fatalf("a delete naming a lease: %v; want ErrInvalidOp", err)
	}
}

// testNoLeases: a store without leases refuses, before writing anything,
// an op attached to one.
func testNoLeases(t *testing.T, s store.Store) {
	r0 := rev(t, s)
	_, err := s.Txn(bg, nil, []store.Op{store.Put("plain", nil), store.PutOnLease("live/a", nil, 1)})
	if !errors.Is(err, store.ErrInvalidOp) {
		t.Fatalf("a put on a lease in a store without leases: %v; want ErrInvalidOp", err)
	}
	if rev(t, s) != r0 {
		t.Fatal("a refused transaction wrote something")
	}
	// Every key of a store without leases names none.
	txn(t, s, nil, store.Put("plain", []byte("p")))
	if kv, err := s.Get(bg, "plain"); err != nil || kv.Lease != 0 {
		t.Fatalf("a key of a store without leases: lease %x, %v; want 0", kv.Lease, err)
	}
}
