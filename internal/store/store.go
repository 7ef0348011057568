// Package store is the persistence of a Virgo installation behind one
// interface: a bbolt file (boltstore), or an etcd cluster (etcdstore).
//
// The interface is deliberately etcd-shaped: a flat ordered key space of
// byte values, each key carrying the revision of its creation and of its last
// change; writes are transactions guarded by compare-and-swap conditions on
// those revisions (admission); every committed transaction gets the next
// installation-wide revision, and Watch streams changes from any revision on,
// so a subscriber can resume exactly where it left off. Callers never hold a
// read-write transaction open across their own logic: they read, decide, and
// commit with conditions, retrying on ErrConflict. That is the one pattern
// both bbolt and etcd serve well.
package store

import (
	"context"
	"errors"
	"fmt"
)

// Named errors of every Store implementation.
var (
	// ErrNotFound: the key does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict: a transaction's condition did not hold; re-read and retry.
	ErrConflict = errors.New("conflict: the stored value changed since it was read")
	// ErrLocked: another process holds the database open for writing.
	ErrLocked = errors.New("database is locked by another process")
	// ErrNewerSchema: the file was written by a newer virgo-tui; it is not touched.
	ErrNewerSchema = errors.New("database schema is newer than this virgo-tui understands")
	// ErrCorrupt: the file is not a Virgo database, or is damaged.
	ErrCorrupt = errors.New("database file is damaged or not a virgo database")
	// ErrCompacted: a watch asked to resume from a revision no longer kept.
	ErrCompacted = errors.New("requested revision has been compacted")
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("store is closed")
	// ErrRecordDamaged: a stored record fails its checksum (a flipped bit on
	// the disk, or a write from outside virgo-tui); the message names its
	// key. Nothing of the record is served, and the read fails.
	ErrRecordDamaged = errors.New("record damaged")
	// ErrInvalidOp: a transaction names an empty or oversized key or value;
	// it is refused before anything is written.
	ErrInvalidOp = errors.New("invalid transaction")
	// ErrTxnTooLarge: a transaction has more conditions, writes or bytes
	// than MaxTxnOps and MaxTxnBytes allow; it is refused before anything
	// is written.
	ErrTxnTooLarge = errors.New("transaction exceeds the store's limits")
	// ErrUnavailable: the store cannot be reached, or cannot commit (an
	// etcd cluster without quorum), within the time a call is given.
	ErrUnavailable = errors.New("store unavailable")
)

// NotFound is Get's ErrNotFound, naming the key. Most misses are expected
// (an idempotency key or a correlation id not used before) and their error
// is dropped unread, so it is formatted only when read.
func NotFound(key string) error { return &notFoundError{key} }

type notFoundError struct{ key string }

func (e *notFoundError) Error() string { return fmt.Sprintf("get %q: %v", e.key, ErrNotFound) }
func (e *notFoundError) Unwrap() error { return ErrNotFound }

// KV is one stored key with its value and revisions.
type KV struct {
	Key   string
	Value []byte
	// CreateRev is the revision of the transaction that created the key.
	CreateRev int64
	// ModRev is the revision of the transaction that last wrote the key.
	ModRev int64
	// Lease is the lease the key lives on (Op.Lease), 0 for none: a key on
	// a lease is a live holder's run-time state, gone with the lease. A
	// store without leases reports 0.
	Lease LeaseID
}

// Cond is a compare-and-swap guard: the key's ModRev must equal ModRev at
// commit time. ModRev 0 means "the key must not exist".
type Cond struct {
	Key    string
	ModRev int64
}

// Op is one write of a transaction: a put, or a delete when Delete is set.
type Op struct {
	Key    string
	Value  []byte
	Delete bool
	// Lease, on a put, attaches the key to a lease of the store (a
	// Leaser's): the store deletes the key when the lease ends. 0: the
	// key lives until it is deleted. A store without leases refuses an
	// op that names one (ErrInvalidOp).
	Lease LeaseID
}

// Put is an Op that stores value under key.
func Put(key string, value []byte) Op { return Op{Key: key, Value: value} }

// Event is one committed write, as Watch delivers it.
type Event struct {
	// Rev is the revision of the transaction that wrote it; events of one
	// transaction share it and arrive in the order of its Ops.
	Rev    int64
	Key    string
	Value  []byte
	Delete bool
	// Last marks the last event of its revision under the watched
	// prefix: a watcher that has applied it has applied the whole
	// transaction, never half of it.
	Last bool
}

// Store is what the registry, the confirmation queue and the hub persist
// through. Implementations are safe for concurrent use.
type Store interface {
	// Get returns one key, or ErrNotFound.
	Get(ctx context.Context, key string) (KV, error)
	// List returns every key with the prefix, in key order.
	List(ctx context.Context, prefix string) ([]KV, error)
	// Range returns one page of the keys with the prefix, in key order,
	// read at one revision: at most limit keys (limit > 0, else
	// ErrInvalidOp) greater than after (after "" starts at the prefix's
	// first key), and more is true when keys with the prefix follow the
	// page's last. Only keys with the prefix are returned, whatever after
	// is: an after outside the prefix starts at its first key when it
	// sorts before them and yields an empty page when it sorts after.
	// Pages read at different revisions may see writes made between them;
	// a key is never returned twice, since the next page starts after the
	// last key returned.
	Range(ctx context.Context, prefix, after string, limit int) (kvs []KV, more bool, err error)
	// Txn commits ops atomically and durably (synced to stable storage
	// before it returns) if every cond holds, and returns the new revision.
	// If a cond fails nothing is written and the error is ErrConflict.
	// Revisions only grow; they need not be consecutive (an etcd cluster
	// shares them among installations). A Txn that changes nothing returns
	// the current revision. Beyond the limits (CheckTxn) it fails with
	// ErrInvalidOp or ErrTxnTooLarge before anything is written.
	Txn(ctx context.Context, conds []Cond, ops []Op) (rev int64, err error)
	// Rev is the revision of the last committed transaction.
	Rev(ctx context.Context) (int64, error)
	// Watch delivers the events under prefix with a revision above
	// afterRev, first from history, then live, until ctx ends: every
	// delete, and every put not replaced by a later write before the
	// watcher read it (that write's event carries the key's latest value),
	// so a watcher sees each key's latest state in revision order.
	// Resuming below the kept history fails with ErrCompacted.
	Watch(ctx context.Context, prefix string, afterRev int64) (<-chan Event, error)
	// Close releases the store; later calls return ErrClosed.
	Close() error
}
