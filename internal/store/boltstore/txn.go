package boltstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// Group commit. An fsync costs milliseconds; a hub admitting many personas at
// once would spend its life in them. So concurrent Txn callers share one bbolt
// transaction and one fsync: the first caller leads and commits at once (a
// lone caller waits for nothing); callers arriving during that commit queue
// up, and when it ends the first of them leads the next commit for the whole
// queue. Inside a group each caller is still its own serial transaction: its
// conditions see the writes of the callers before it, it gets its own
// revision, and its conflict fails only itself.

// request is one Txn call waiting for a commit.
type request struct {
	ctx   context.Context
	conds []store.Cond
	ops   []store.Op
	// wake receives true when the request is to lead the next commit, false
	// when a leader has committed it and rev/err are set.
	wake chan bool
	rev  int64
	err  error
}

// errNothingWritten rolls back a group whose every caller was a no-op, so
// that reading conditions costs no write and no fsync.
var errNothingWritten = errors.New("nothing written")

// Txn commits ops atomically and durably if every cond holds, and returns the
// new revision. A Txn that changes nothing (no ops, or only deletes of absent
// keys) writes nothing and returns the current revision. A Txn whose ctx ends
// before its group starts to commit is not applied and returns ctx.Err().
func (b *Store) Txn(ctx context.Context, conds []store.Cond, ops []store.Op) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	// One process owns the file: there is no one for a lease to outlive.
	if err := store.CheckTxn(conds, ops, false); err != nil {
		return 0, err
	}
	r := &request{ctx: ctx, conds: conds, ops: ops, wake: make(chan bool, 1)}
	b.mu.Lock()
	if b.closed.Load() {
		b.mu.Unlock()
		return 0, store.ErrClosed
	}
	b.queue = append(b.queue, r)
	if b.committing {
		b.mu.Unlock()
		if lead := <-r.wake; !lead {
			return r.rev, r.err
		}
		b.mu.Lock()
	}
	b.committing = true
	group := b.queue
	b.queue = nil
	b.mu.Unlock()

	began := time.Now()
	b.commit(group)
	for _, o := range group {
		if o != r {
			o.wake <- false
		}
	}
	b.commitNanos.Add(int64(time.Since(began)))

	b.mu.Lock()
	if len(b.queue) > 0 {
		b.queue[0].wake <- true
	} else {
		b.committing = false
		b.idle.Broadcast()
	}
	b.mu.Unlock()
	return r.rev, r.err
}

// commit applies a group in one bbolt transaction and sets every request's
// result. If the commit itself fails, every request fails with its error.
func (b *Store) commit(group []*request) {
	var w *writer
	err := guard("commit to "+b.path, func() error {
		return b.db.Update(func(tx *bolt.Tx) error {
			var err error
			if w, err = newWriter(tx, b.rev.Load()); err != nil {
				return err
			}
			for _, r := range group {
				if r.err = r.ctx.Err(); r.err != nil {
					continue
				}
				r.rev, r.err = w.apply(r.conds, r.ops)
				if r.err != nil && !errors.Is(r.err, store.ErrConflict) && !errors.Is(r.err, store.ErrRecordDamaged) {
					return r.err
				}
			}
			if w.written == 0 {
				return errNothingWritten
			}
			return w.finish(b.history, b.historyBytes)
		})
	})
	if errors.Is(err, errNothingWritten) {
		return
	}
	if err != nil {
		for _, r := range group {
			r.rev, r.err = 0, fmt.Errorf("commit to %s: %w", b.path, err)
		}
		return
	}
	b.commits.Add(1)
	b.txns.Add(w.written)
	b.rev.Store(w.rev)
	b.changed.broadcast()
}

// writer applies requests to one bbolt transaction.
type writer struct {
	meta, kv, log *bolt.Bucket
	// at reads kv (get): bbolt's Bucket.Get makes a cursor per call, whose
	// path through the tree grows from nothing — three allocations a
	// read, and a request reads each of its keys twice or three times.
	at                        *bolt.Cursor
	rev                       int64 // revision of the last applied request
	logn, logBytes, compacted int64
	written                   int64 // requests that wrote
}

func newWriter(tx *bolt.Tx, rev int64) (*writer, error) {
	w := &writer{meta: tx.Bucket(bucketMeta), kv: tx.Bucket(bucketKV), log: tx.Bucket(bucketLog), rev: rev}
	w.kv.FillPercent, w.log.FillPercent = kvFillPercent, logFillPercent
	w.at = w.kv.Cursor()
	var err error
	if w.logn, err = getCounter(w.meta, keyLogN); err != nil {
		return nil, err
	}
	if w.logBytes, err = getCounter(w.meta, keyLogBytes); err != nil {
		return nil, err
	}
	if w.compacted, err = getCounter(w.meta, keyCompacted); err != nil {
		return nil, err
	}
	return w, nil
}

// apply checks one request's conds against the state so far, then writes its
// ops under the next revision and logs each as an event. A damaged record
// among those it reads fails the request before it writes anything: its
// revisions would decide the conds and the new record's CreateRev.
func (w *writer) apply(conds []store.Cond, ops []store.Op) (int64, error) {
	for _, c := range conds {
		raw := w.get([]byte(c.Key))
		if raw != nil {
			if err := checkRecord([]byte(c.Key), raw); err != nil {
				return 0, err
			}
		}
		if got := modRevOf(raw); got != c.ModRev {
			return 0, fmt.Errorf("%w: key %q is at revision %d, the transaction expected %d", store.ErrConflict, c.Key, got, c.ModRev)
		}
	}
	for _, op := range ops {
		if raw := w.get([]byte(op.Key)); raw != nil {
			if err := checkRecord([]byte(op.Key), raw); err != nil {
				return 0, err
			}
		}
	}
	next := w.rev + 1
	var index uint32
	for _, op := range ops {
		key := []byte(op.Key)
		old := w.get(key)
		var err error
		switch {
		case op.Delete && old == nil:
			continue
		case op.Delete:
			err = w.kv.Delete(key)
		case old == nil:
			err = w.kv.Put(key, encodeRecord(key, next, next, op.Value))
		default:
			err = w.kv.Put(key, encodeRecord(key, createRevOf(old), next, op.Value))
		}
		lk := logKey(next, index)
		e := encodeEvent(lk, op.Key, op.Delete)
		if err == nil {
			err = w.log.Put(lk, e)
		}
		if err != nil {
			return 0, fmt.Errorf("write %q: %w", op.Key, err)
		}
		w.logBytes += logEntrySize(lk, e)
		index++
	}
	if index == 0 {
		return w.rev, nil
	}
	w.rev = next
	w.logn += int64(index)
	w.written++
	return next, nil
}

// get is kv's value of key, nil when absent, as kv.Get but through the
// writer's one cursor (a Seek repositions it after any write).
func (w *writer) get(key []byte) []byte {
	k, v := w.at.Seek(key)
	if !bytes.Equal(k, key) {
		return nil
	}
	return v
}

// finish records the revision and trims the change log to history entries
// and historyBytes bytes, whole revisions at a time (a watcher never sees
// half a transaction), never the newest one.
func (w *writer) finish(history int, historyBytes int64) error {
	c := w.log.Cursor()
	for w.logn > int64(history) || w.logBytes > historyBytes {
		k, v := c.First()
		rev := logRev(k)
		if k == nil || rev >= w.rev {
			break
		}
		var keys [][]byte
		for ; k != nil && logRev(k) == rev; k, v = c.Next() {
			keys = append(keys, bytes.Clone(k))
			w.logBytes -= logEntrySize(k, v)
		}
		for _, k := range keys {
			if err := w.log.Delete(k); err != nil {
				return err
			}
		}
		w.logn -= int64(len(keys))
		w.compacted = rev
	}
	for _, kv := range []struct {
		k []byte
		v int64
	}{{keyRev, w.rev}, {keyLogN, w.logn}, {keyLogBytes, w.logBytes}, {keyCompacted, w.compacted}} {
		if err := putCounter(w.meta, kv.k, kv.v); err != nil {
			return err
		}
	}
	return nil
}

// How full a leaf is left when bbolt splits it (Bucket.FillPercent, 0.5 by
// default, is per transaction). A leaf that overflows is split at this
// share of a page; the left part is never written to again when keys only
// grow — the change log, and the records keyed by time (confirmations,
// their undecided index, the audit log, idempotency records) — so at 0.5
// those ranges stayed half full for ever, doubling the file they take.
// Records inserted at random places (personas, stamps, seats) fill their
// leaves about as well either way. docs/store.md, "Page fill", has the
// figures.
const (
	kvFillPercent  = 0.8
	logFillPercent = 1.0
)
