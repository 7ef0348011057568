package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

var _ store.Leaser = (*Store)(nil)

// Lease is a store.Lease on etcd: an etcd lease kept alive by a
// concurrency.Session of the store's client, so that an election (package
// leader) can campaign on the same session.
type Lease struct {
	s    *Store
	sess *concurrency.Session
	ttl  time.Duration
}

// Grant asks the cluster for a lease of ttl, rounded up to whole seconds
// (etcd's unit; the cluster may raise it to its own minimum, which TTL
// reports), within the call timeout, and keeps it alive in the background
// until Revoke or Close. Renewals that fail for the lease's TTL (the
// cluster unreachable) lose it: Done closes, and it is never renewed
// again. Close does not revoke a store's leases: they expire within their
// TTL, as they would if the process had died.
func (s *Store) Grant(ctx context.Context, ttl time.Duration) (store.Lease, error) {
	return s.GrantSession(ctx, ttl)
}

// GrantSession is Grant, returning the etcd Lease with its session.
func (s *Store) GrantSession(ctx context.Context, ttl time.Duration) (*Lease, error) {
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	secs := int64(math.Ceil(ttl.Seconds()))
	if secs < 1 {
		return nil, fmt.Errorf("grant a lease of %s: %w: a lease lives at least a second", ttl, store.ErrInvalidOp)
	}
	cctx, cancel := s.call(ctx)
	resp, err := s.cli.Grant(cctx, secs)
	cancel()
	if err != nil {
		return nil, s.fail(ctx, "grant a lease", err)
	}
	// The session keeps the lease alive on the client's own context, not
	// the caller's: the lease lives until Revoke, Close, or its loss.
	sess, err := concurrency.NewSession(s.cli, concurrency.WithLease(resp.ID), concurrency.WithTTL(int(resp.TTL)))
	if err != nil {
		return nil, s.fail(ctx, "keep a lease alive", err)
	}
	return &Lease{s: s, sess: sess, ttl: time.Duration(resp.TTL) * time.Second}, nil
}

// ID is the etcd lease id.
func (l *Lease) ID() store.LeaseID { return store.LeaseID(l.sess.Lease()) }

// TTL is the lease's time to live as the cluster granted it.
func (l *Lease) TTL() time.Duration { return l.ttl }

// Done is closed when the lease is lost: revoked, expired, or the store
// closed.
func (l *Lease) Done() <-chan struct{} { return l.sess.Done() }

// Session is the concurrency session that keeps the lease alive, for an
// election on it.
func (l *Lease) Session() *concurrency.Session { return l.sess }

// Revoke stops renewing the lease and ends it on the cluster, which
// deletes every key on it, within the call timeout. A lease already lost
// is no error.
func (l *Lease) Revoke(ctx context.Context) error {
	l.sess.Orphan()
	if err := l.s.begin(ctx); err != nil {
		return err
	}
	cctx, cancel := l.s.call(ctx)
	defer cancel()
	_, err := l.s.cli.Revoke(cctx, clientv3.LeaseID(l.ID()))
	if err != nil && !errors.Is(err, rpctypes.ErrLeaseNotFound) {
		return l.s.fail(ctx, fmt.Sprintf("revoke lease %x", l.ID()), err)
	}
	return nil
}

// LeaseLeft is how long lease id lives unless it is renewed (the cluster's
// own count, read within the call timeout): a holder that renews keeps it
// near the TTL. A lease that has ended is store.ErrLeaseLost.
func (s *Store) LeaseLeft(ctx context.Context, id store.LeaseID) (time.Duration, error) {
	if err := s.begin(ctx); err != nil {
		return 0, err
	}
	cctx, cancel := s.call(ctx)
	defer cancel()
	resp, err := s.cli.TimeToLive(cctx, clientv3.LeaseID(id))
	if err != nil {
		return 0, s.fail(ctx, fmt.Sprintf("read lease %x", id), err)
	}
	if resp.TTL < 0 {
		return 0, fmt.Errorf("lease %x: %w", id, store.ErrLeaseLost)
	}
	return time.Duration(resp.TTL) * time.Second, nil
}
