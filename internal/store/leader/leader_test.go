package leader_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore"
	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore/etcdtest"
	"github.com/virgo-hub/virgo-tui/internal/store/leader"
)

var member *etcdtest.Member

func TestMain(m *testing.M) {
	os.Exit(etcdtest.Run(m, func(m *etcdtest.Member) { member = m }))
}

var installations atomic.Int64

// hubs opens n stores on one fresh installation prefix of the member: n
// hubs of one installation.
func hubs(t *testing.T, n int) []*etcdstore.Store {
	t.Helper()
	prefix := fmt.Sprintf("virgo-test/%s/%d/", t.Name(), installations.Add(1))
	out := make([]*etcdstore.Store, n)
	for i := range out {
		s, err := etcdstore.Open(context.Background(), etcdstore.Options{Endpoints: []string{member.Endpoint}, Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		out[i] = s
	}
	return out
}

func election(s store.Store, holder string) leader.Election {
	return leader.For(s, leader.Options{Name: "jobs", Holder: holder, TTL: time.Second})
}

// One leads at a time: the second candidate waits until the first
// resigns, and Leader names whoever leads.
func TestOneLeaderAtATime(t *testing.T) {
	ctx := context.Background()
	ss := hubs(t, 2)
	a, b := election(ss[0], "hub-a"), election(ss[1], "hub-b")
	ta, err := a.Campaign(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ta.Fence.Key, leader.Prefix+"jobs/") || ta.Fence.ModRev == 0 {
		t.Fatalf("the term's fence is %+v; want the leader key under %sjobs/ at its revision", ta.Fence, leader.Prefix)
	}
	won := make(chan *leader.Term, 1)
	go func() {
		tb, err := b.Campaign(ctx)
		if err != nil {
			t.Error(err)
		}
		won <- tb
	}()
	deadline := time.Now().Add(5 * time.Second)
	for {
		h, ok, err := b.Leader(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ok && h.Name == "hub-a" && h.Key == ta.Fence.Key && h.Candidates == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Leader = %+v, %v; want hub-a leading two candidates", h, ok)
		}
		time.Sleep(20 * time.Millisecond)
	}
	select {
	case <-won:
		t.Fatal("a second candidate won while the first leads")
	case <-time.After(300 * time.Millisecond):
	}
	if err := ta.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case tb := <-won:
		if tb == nil || tb.Fence.Key == ta.Fence.Key {
			t.Fatalf("after the resignation b's term is %+v", tb)
		}
		tb.Resign(ctx)
	case <-time.After(5 * time.Second):
		t.Fatal("the second candidate did not lead after the first resigned")
	}
}

// "A job whose leadership moved on cannot write": its leader key taken
// away, the job's next transaction is refused naming the key, and the
// term is over; a leader that dies (its lease not renewed) is replaced
// within its TTL.
func TestFencedWriteAfterLeadershipMovedOn(t *testing.T) {
	ctx := context.Background()
	ss := hubs(t, 2)
	term, err := election(ss[0], "hub-a").Campaign(ctx)
	if err != nil {
		t.Fatal(err)
	}
	job := term.Store(ss[0])
	if _, err := job.Txn(ctx, nil, []store.Op{store.Put("swept/1", nil)}); err != nil {
		t.Fatalf("a leader's fenced write: %v", err)
	}
	// Another hub takes the key away (as an expired lease would).
	if _, err := ss[1].Txn(ctx, nil, []store.Op{{Key: term.Fence.Key, Delete: true}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-term.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the term is not over 5s after its leader key went")
	}
	// A job that did not look (paused) writes, and is refused.
	_, err = job.Txn(ctx, nil, []store.Op{store.Put("swept/2", nil)})
	if !errors.Is(err, leader.ErrNotLeader) || !errors.Is(err, store.ErrConflict) || !strings.Contains(err.Error(), term.Fence.Key) {
		t.Fatalf("a fenced write after the leader key went: %v; want ErrNotLeader and ErrConflict naming %q", err, term.Fence.Key)
	}
	if _, err := ss[0].Get(ctx, "swept/2"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the refused write is in the store: %v", err)
	}
	select {
	case <-term.Done():
	default:
		t.Fatal("the term is not over after its fence moved")
	}
	if _, err := job.Txn(ctx, nil, []store.Op{store.Put("swept/3", nil)}); !errors.Is(err, leader.ErrNotLeader) {
		t.Fatalf("a write in a term that is over: %v; want ErrNotLeader", err)
	}
	// An ordinary conflict of a leader is only that.
	t2, err := election(ss[1], "hub-b").Campaign(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = t2.Store(ss[1]).Txn(ctx, []store.Cond{{Key: "swept/1"}}, []store.Op{store.Put("swept/1", nil)})
	if !errors.Is(err, store.ErrConflict) || errors.Is(err, leader.ErrNotLeader) {
		t.Fatalf("a leader's own conflict: %v; want ErrConflict, not ErrNotLeader", err)
	}
	// b dies without resigning: a new candidate leads within the TTL.
	died := time.Now()
	ss[1].Close()
	t3, err := election(ss[0], "hub-c").Campaign(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer t3.Resign(ctx)
	if took := time.Since(died); took > 5*time.Second {
		t.Fatalf("a dead leader was replaced after %s", took)
	}
}

// A store with one owner: the owner leads at once, and its writes carry
// no fence (the store is returned as it is).
func TestSoloLeadsWithoutFence(t *testing.T) {
	b, err := boltstore.Open(filepath.Join(t.TempDir(), "virgo.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	e := leader.For(b, leader.Options{Name: "jobs"})
	term, err := e.Campaign(context.Background())
	if err != nil || term.Store(b) != store.Store(b) || term.Fence != (store.Cond{}) {
		t.Fatalf("solo campaign: %+v, %v; want a term without a fence", term, err)
	}
	if h, ok, err := e.Leader(context.Background()); !ok || err != nil || h.Candidates != 1 {
		t.Fatalf("solo leader: %+v %v %v", h, ok, err)
	}
	select {
	case <-term.Done():
		t.Fatal("a solo term ended by itself")
	default:
	}
}
