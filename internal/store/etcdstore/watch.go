package etcdstore

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// Watch delivers the events under prefix with a revision above afterRev,
// first from etcd's history, then live, until ctx ends or the store
// closes. etcd delivers every write (it leaves none out, as bbolt may) and
// never splits a revision between responses, so Last marks the end of
// each. A revision below etcd's compaction fails the call with
// store.ErrCompacted; a watch that etcd ends later (compacted under a slow
// watcher, or its member lost its leader) closes the channel, and the
// caller watches again from the last revision it saw.
func (s *Store) Watch(ctx context.Context, prefix string, afterRev int64) (<-chan store.Event, error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	afterRev = max(afterRev, 0)
	// etcd reports a compacted start on the watch channel, later; a read
	// at the start revision says it now, as the contract asks.
	cur, err := s.Rev(ctx)
	if err != nil {
		return nil, err
	}
	if afterRev < cur {
		cctx, cancel := s.call(ctx)
		_, err := s.cli.Get(cctx, s.prefix, clientv3.WithCountOnly(), clientv3.WithRev(afterRev+1))
		cancel()
		if err != nil {
			return nil, fmt.Errorf("watch %q after revision %d: %w", prefix, afterRev, s.fail(ctx, "read its start", err))
		}
	}
	s.mu.Lock()
	if s.closed.Load() {
		s.mu.Unlock()
		return nil, store.ErrClosed
	}
	s.watches.Add(1)
	s.mu.Unlock()
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	wch := s.cli.Watch(wctx, s.prefix+prefix, clientv3.WithPrefix(), clientv3.WithRev(afterRev+1))
	out := make(chan store.Event, 16)
	go func() {
		defer s.watches.Done()
		defer close(out)
		defer cancel()
		for {
			var resp clientv3.WatchResponse
			var ok bool
			select {
			case resp, ok = <-wch:
			case <-s.closing:
				return
			}
			if !ok || resp.Canceled || resp.CompactRevision != 0 || resp.Err() != nil {
				return
			}
			for i, ev := range resp.Events {
				e := store.Event{
					Rev:    ev.Kv.ModRevision,
					Key:    s.key(ev.Kv.Key),
					Delete: ev.Type == clientv3.EventTypeDelete,
					Last:   i == len(resp.Events)-1 || resp.Events[i+1].Kv.ModRevision != ev.Kv.ModRevision,
				}
				if !e.Delete {
					e.Value = ev.Kv.Value
				}
				select {
				case out <- e:
				case <-ctx.Done():
					return
				case <-s.closing:
					return
				}
			}
		}
	}()
	return out, nil
}
