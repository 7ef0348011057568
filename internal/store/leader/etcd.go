package leader

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/etcdstore"
)

// DefaultTTL is the lease of an etcd campaign: a leader that dies (or
// pauses) is replaced, and its writes fenced off, within about this long.
const DefaultTTL = 10 * time.Second

// Prefix is where elections keep their candidates' keys in the store:
// PREFIX + name + "/" + the candidate's lease id, in hex.
const Prefix = "election/"

// Options name an election.
type Options struct {
	// Name is the election's, under Prefix ("jobs" for the hub's jobs).
	Name string
	// Holder is what a leader is known by in Leader (host and process).
	Holder string
	// TTL is a campaign's lease on etcd; DefaultTTL when 0.
	TTL time.Duration
}

// For is the election of s: etcd's on an etcd store, Solo on any other
// (a store that one process owns).
func For(s store.Store, opts Options) Election {
	es, ok := s.(*etcdstore.Store)
	if !ok {
		return Solo{}
	}
	if opts.TTL <= 0 {
		opts.TTL = DefaultTTL
	}
	return &onEtcd{s: es, opts: opts}
}

// onEtcd is an election by etcd's concurrency package on the store's
// client, under the installation's prefix.
type onEtcd struct {
	s    *etcdstore.Store
	opts Options
}

func (e *onEtcd) key() string { return Prefix + e.opts.Name }

// Campaign grants a lease of its own for the term, puts the candidate's
// key on it and waits until every key created before it is gone. The
// term's fence is that key at the revision it then has; the term ends
// when the lease is lost.
func (e *onEtcd) Campaign(ctx context.Context) (*Term, error) {
	lease, err := e.s.GrantSession(ctx, e.opts.TTL)
	if err != nil {
		return nil, fmt.Errorf("campaign for %s: %w", e.key(), err)
	}
	el := concurrency.NewElection(lease.Session(), e.s.Prefix()+e.key())
	if err := el.Campaign(ctx, e.opts.Holder); err != nil {
		lease.Revoke(context.WithoutCancel(ctx))
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("campaign for %s: %w: %w", e.key(), store.ErrUnavailable, err)
	}
	key := strings.TrimPrefix(el.Key(), e.s.Prefix())
	kv, err := e.s.Get(ctx, key)
	if err != nil {
		lease.Revoke(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("campaign for %s: read the leader key: %w", e.key(), err)
	}
	// The term is over as soon as its key changes (taken away, or its
	// lease expired), not only at the next write the fence refuses.
	wctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	changes, err := e.s.Watch(wctx, key, kv.ModRev)
	if err != nil {
		stop()
		lease.Revoke(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("campaign for %s: watch the leader key: %w", e.key(), err)
	}
	resign := func(ctx context.Context) error {
		// Revoking the lease deletes the key: the next candidate leads.
		return lease.Revoke(ctx)
	}
	t := newTerm(store.Cond{Key: key, ModRev: kv.ModRev}, lease.Done(), resign)
	go func() {
		defer stop()
		for {
			select {
			case ev, ok := <-changes:
				// A watch that ends leaves the term unwatched: over.
				if !ok || ev.Key == key {
					t.lose()
					return
				}
			case <-t.Done():
				return
			}
		}
	}()
	return t, nil
}

// Leader reads the candidates' keys at one revision: the one created
// first leads.
func (e *onEtcd) Leader(ctx context.Context) (Holder, bool, error) {
	kvs, err := e.s.List(ctx, e.key()+"/")
	if err != nil {
		return Holder{}, false, fmt.Errorf("read the election %s: %w", e.key(), err)
	}
	if len(kvs) == 0 {
		return Holder{}, false, nil
	}
	first := kvs[0]
	for _, kv := range kvs[1:] {
		if kv.CreateRev < first.CreateRev {
			first = kv
		}
	}
	return Holder{Name: string(first.Value), Key: first.Key, Since: first.CreateRev, Candidates: len(kvs)}, true, nil
}
