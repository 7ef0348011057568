package etcdstore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore"
	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore/etcdtest"
	"github.com/virgo-hub/virgo-tui/internal/store/storetest"
)

// member is the one embedded etcd member of this package's tests; each
// test's store is a fresh installation prefix on it.
var member *etcdtest.Member

func TestMain(m *testing.M) {
	os.Exit(etcdtest.Run(m, func(m *etcdtest.Member) { member = m }))
}

var installations atomic.Int64

// open opens a store on a fresh prefix of the test member.
func open(t *testing.T) *etcdstore.Store {
	t.Helper()
	s, err := etcdstore.Open(context.Background(), etcdstore.Options{
		Endpoints: []string{member.Endpoint},
		Prefix:    fmt.Sprintf("virgo-test/%s/%d/", t.Name(), installations.Add(1)),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// The etcd store runs the one conformance suite of the Store contract.
func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Harness{
		Open: func(t *testing.T) store.Store { return open(t) },
		Compact: func(t *testing.T, s store.Store) {
			rev, err := s.Rev(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.(*etcdstore.Store).Client().Compact(context.Background(), rev, clientv3.WithCompactPhysical()); err != nil {
				t.Fatal(err)
			}
		},
	})
}

// Installations on one cluster never see each other's keys: a list, a
// get and a watch stay under their own prefix.
func TestPrefixesAreSeparate(t *testing.T) {
	ctx := context.Background()
	a, b := open(t), open(t)
	before, _ := a.Rev(ctx)
	if _, err := b.Txn(ctx, nil, []store.Op{store.Put("persona/1", []byte("b"))}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Get(ctx, "persona/1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("installation a reads b's key: %v", err)
	}
	if l, _ := a.List(ctx, ""); len(l) != 0 {
		t.Fatalf("installation a lists b's keys: %+v", l)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, err := a.Watch(wctx, "", before)
	if err != nil {
		t.Fatal(err)
	}
	rev, _ := a.Txn(ctx, nil, []store.Op{store.Put("own", nil)})
	if ev := <-ch; ev.Key != "own" || ev.Rev != rev {
		t.Fatalf("a's watch got %+v first, want its own write at %d (b's is not its)", ev, rev)
	}
}

// A list longer than a page is read at one revision: keys written while
// it pages are not in it.
func TestListPagesAtOneRevision(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	ops := make([]store.Op, 600)
	for i := range ops {
		ops[i] = store.Put(fmt.Sprintf("k/%04d", i), []byte{byte(i)})
	}
	if _, err := store.WriteAll(ctx, s, ops); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 50 {
			s.Txn(ctx, nil, []store.Op{store.Put(fmt.Sprintf("k/%04d", 600+i), nil), store.Op{Key: "k/0000", Delete: true}})
		}
	}()
	for range 5 {
		l, err := s.List(ctx, "k/")
		if err != nil {
			t.Fatal(err)
		}
		// At any one revision, k/0000 is there exactly when no later key is.
		has0 := l[0].Key == "k/0000"
		if n := len(l); (has0 && n != 600) || (!has0 && n < 600) {
			t.Fatalf("list of %d keys, first %s: not one revision's state", n, l[0].Key)
		}
	}
	<-done
}

// "A cluster without quorum is store unavailable within a bounded time,
// never a hang": a stopped member answers no call, and every call says so
// within its timeout.
func TestUnavailableWithinBoundedTime(t *testing.T) {
	dir := t.TempDir()
	m, err := etcdtest.Start(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := etcdstore.Open(ctx, etcdstore.Options{Endpoints: []string{m.Endpoint}, Prefix: "p/", CallTimeout: time.Second, DialTimeout: time.Second})
	if err != nil {
		m.Stop()
		t.Fatal(err)
	}
	defer s.Close()
	m.Stop()
	var wg sync.WaitGroup
	for name, call := range map[string]func() error{
		"get":    func() error { _, err := s.Get(ctx, "k"); return err },
		"list":   func() error { _, err := s.List(ctx, ""); return err },
		"txn":    func() error { _, err := s.Txn(ctx, nil, []store.Op{store.Put("k", nil)}); return err },
		"rev":    func() error { _, err := s.Rev(ctx); return err },
		"status": func() error { _, err := s.Status(ctx); return err },
		"watch":  func() error { _, err := s.Watch(ctx, "", 0); return err },
		"open": func() error {
			_, err := etcdstore.Open(ctx, etcdstore.Options{Endpoints: []string{m.Endpoint}, Prefix: "p/", DialTimeout: time.Second})
			return err
		},
	} {
		wg.Go(func() {
			start := time.Now()
			err := call()
			if took := time.Since(start); !errors.Is(err, store.ErrUnavailable) || took > 3*time.Second {
				t.Errorf("%s on a stopped cluster: %v after %s; want ErrUnavailable within about 1s", name, err, took)
			}
		})
	}
	wg.Wait()
}

func TestParseURL(t *testing.T) {
	o, err := etcdstore.ParseURL("etcd://a:2379,10.0.0.2:2379/virgo/home")
	if err != nil || len(o.Endpoints) != 2 || o.Endpoints[1] != "10.0.0.2:2379" || o.Prefix != "virgo/home/" {
		t.Fatalf("ParseURL = %+v, %v", o, err)
	}
	for _, bad := range []string{"bolt:/x", "etcd://a:2379", "etcd://a:2379/", "etcd://a/p", "etcd://:2379/p", "etcd://a:2379,/p"} {
		if _, err := etcdstore.ParseURL(bad); !errors.Is(err, etcdstore.ErrBadURL) {
			t.Errorf("ParseURL(%q): %v, want ErrBadURL", bad, err)
		}
	}
}

// "A hub that dies takes its personas offline everywhere within the lease
// time": a store whose process stops renewing (closed without a revoke,
// as a crash leaves it) loses its lease, and another store on the same
// installation sees the key on it deleted within the TTL.
func TestLeaseExpiresWithItsHolder(t *testing.T) {
	ctx := context.Background()
	a := open(t)
	b, err := etcdstore.Open(ctx, etcdstore.Options{Endpoints: []string{member.Endpoint}, Prefix: a.Prefix()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	lease, err := a.Grant(ctx, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	rev, err := a.Txn(ctx, nil, []store.Op{store.PutOnLease("presence/x", []byte("x"), lease.ID())})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := b.Watch(ctx, "presence/", rev)
	if err != nil {
		t.Fatal(err)
	}
	// The margins below are what a loaded 2-core machine running the whole
	// suite needs (the member's lessor checks expiry every 500 ms and its
	// revoke is a raft commit); a lease not tied to its holder fails anyway,
	// its key never deleted.
	closed := time.Now()
	a.Close()
	select {
	case <-lease.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the lease of a closed store is not reported lost")
	}
	select {
	case ev := <-ch:
		if ev.Key != "presence/x" || !ev.Delete {
			t.Fatalf("b's watch got %+v; want the delete of presence/x", ev)
		}
		if took := time.Since(closed); took > lease.TTL()+3*time.Second {
			t.Fatalf("the key outlived its holder by %s; the lease's TTL is %s", took, lease.TTL())
		}
	case <-time.After(lease.TTL() + 10*time.Second):
		t.Fatalf("the key on a dead holder's lease is still there %s after its TTL", 10*time.Second)
	}
}
