package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrLeaseLost: a write names a lease that has expired or was revoked; the
// holder must grant a new one (and rewrite what it kept on the old).
var ErrLeaseLost = errors.New("lease lost: it expired or was revoked")

// LeaseID names a lease in its store; 0 is no lease.
type LeaseID int64

// Leaser is the optional part of a Store whose keys can live on a lease:
// a key put with Op.Lease is deleted by the store itself when the lease
// ends (revoked, or not renewed within its TTL, its holder gone), and
// watchers see that delete like any other. Several processes on one store
// (hubs on an etcd cluster) use it so that what one of them reports dies
// with it. A store with one owner (the bbolt file) does not implement it:
// callers type-assert and fall back to keys that live until deleted.
type Leaser interface {
	// Grant starts a lease of at least ttl (a store may round it up to
	// its own minimum, see Lease.TTL) and keeps it alive until Revoke or
	// until the store closes.
	Grant(ctx context.Context, ttl time.Duration) (Lease, error)
}

// Lease is one granted lease. It is kept alive inside the store; once it
// is lost it stays lost: Done is closed and it is never renewed into a
// new one, so a holder learns that its keys are gone.
type Lease interface {
	// ID is what Op.Lease names.
	ID() LeaseID
	// TTL is the lease's time to live as the store granted it: the keys
	// on it outlive a holder that stopped renewing by at most this.
	TTL() time.Duration
	// Done is closed when the lease is lost: revoked, expired (renewals
	// did not reach the store within the TTL), or its store closed.
	Done() <-chan struct{}
	// Revoke ends the lease now and deletes its keys.
	Revoke(ctx context.Context) error
}

// PutOnLease is an Op that stores value under key until lease ends.
func PutOnLease(key string, value []byte, lease LeaseID) Op {
	return Op{Key: key, Value: value, Lease: lease}
}

// checkLease refuses op i when it is a delete that names a lease (a delete
// ends a key whatever it lives on) or, on a store without leases, when it
// names one at all.
func checkLease(op Op, i int, leases bool) error {
	switch {
	case op.Lease == 0:
	case op.Delete:
		return fmt.Errorf("%w: op %d deletes %q on lease %x: a delete names no lease", ErrInvalidOp, i, op.Key, op.Lease)
	case !leases:
		return fmt.Errorf("%w: op %d puts %q on lease %x, and this store has no leases (only etcd does)", ErrInvalidOp, i, op.Key, op.Lease)
	}
	return nil
}
