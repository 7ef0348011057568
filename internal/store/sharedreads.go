package store

import (
	"context"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Shared reads. A use case plans by reading several keys (a confirmation
// request reads about eight: the persona, its learned choices, the
// correlation id, the fingerprint, the route's seat and its holder), and
// on bbolt every read was a read transaction of its own: about ten
// allocations to begin and end, bbolt's meta lock taken twice and its map
// lock once — where the handlers that one group commit releases at once
// meet. Reads under a context from ShareReads share one read transaction,
// begun by the first of them.
//
// bbolt grows its map inside a commit, under a lock that waits for every
// open read transaction. A shared transaction stays open between reads,
// while its holder runs its own code, which may wait on something that
// waits on the commit, or begin a read of its own (which queues behind the
// waiting commit): the commit would wait forever. So a commit that has not
// finished within slowCommit ends every shared transaction and lets none
// begin until it is done; reads meanwhile take transactions of their own,
// and the next read after the commit begins a new shared one. A commit
// that grows the map therefore waits at most slowCommit plus the reads in
// progress. (Ending every shared transaction at the start of each commit
// instead kept almost none open: under load the commit leader commits
// back to back.)
//
// The reads under one context thus need not see one revision, no more
// than separate reads do, and a shared transaction begun during a commit
// does not see it when the commit returns: a use case's plan reads under
// one (its commit's conditions catch what changed) and ends it before it
// commits; a read after a write of its own must not share the plan's.

// slowCommit is how long a commit runs before it ends the shared read
// transactions: far above a commit's usual time (about a millisecond idle,
// more than 10 ms on a loaded machine, whose disk other writers keep
// busy), so that sharing goes on under load, and short enough that a
// commit growing the map waits on it at most a tenth of a second — once
// per growth (bbolt doubles its map up to 1 GiB).
const slowCommit = 100 * time.Millisecond

// ReadSharer is a Store whose reads under one context can share read
// transactions.
type ReadSharer interface {
	// ShareReads returns ctx under which Get, List and Range share read
	// transactions until end is called.
	ShareReads(ctx context.Context) (shared context.Context, end func())
}

// ShareReads is st.ShareReads when st shares reads, else ctx itself
// (every read of st stays its own).
func ShareReads(ctx context.Context, st Store) (context.Context, func()) {
	if s, ok := st.(ReadSharer); ok {
		return s.ShareReads(ctx)
	}
	return ctx, func() {}
}

// sharedKey is the context key of a Bolt's sharedReads.
type sharedKey struct{}

// sharedReads is the read transaction the reads under one context share,
// begun by the first read that finds none. The mutex keeps it to one read
// at a time (a bbolt cursor is not safe for concurrent use) and from being
// ended under a read.
type sharedReads struct {
	b     *Bolt
	mu    sync.Mutex
	ended bool
	tx    *bolt.Tx
	kv    *bolt.Bucket
	at    *bolt.Cursor // kv's cursor for Get: bbolt's Bucket.Get makes one per call
}

// readers are a Bolt's open shared read transactions. Lock order: a
// sharedReads' mu before readers.mu; stopSharing takes them one after the
// other, never both.
type readers struct {
	mu     sync.Mutex
	open   map[*sharedReads]struct{}
	frozen bool  // no shared transaction begins while set
	commit int64 // counts commits, so that a late slow-commit timer is ignored
}

// ShareReads returns ctx under which Get, List and Range share read
// transactions until end is called; reads under ctx after end are each
// their own again.
func (b *Bolt) ShareReads(ctx context.Context) (context.Context, func()) {
	s := &sharedReads{b: b}
	return context.WithValue(ctx, sharedKey{}, s), s.end
}

func (s *sharedReads) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ended = true
	s.release()
	s.b.readers.mu.Lock()
	delete(s.b.readers.open, s)
	s.b.readers.mu.Unlock()
}

// release ends s's transaction, if it has one; s.mu is held.
func (s *sharedReads) release() {
	if s.tx != nil {
		_ = s.tx.Rollback() // a read transaction has nothing to roll back
		s.tx, s.kv, s.at = nil, nil, nil
	}
}

// begin begins s's transaction unless sharing is stopped (a slow commit,
// a closed store): then s.tx stays nil and the read takes a transaction of
// its own. s.mu is held; readers.mu is not held while bbolt begins, which
// waits while a commit grows the map, so that stopSharing can always run.
func (s *sharedReads) begin() {
	r := &s.b.readers
	r.mu.Lock()
	stopped := r.frozen
	r.mu.Unlock()
	if stopped || s.b.closed.Load() {
		return
	}
	if err := guard("begin a shared read transaction", func() (err error) {
		if s.tx, err = s.b.db.Begin(false); err != nil {
			return err
		}
		s.kv = s.tx.Bucket(bucketKV)
		s.at = s.kv.Cursor()
		return nil
	}); err != nil {
		s.release()
		return // the read's own transaction reports the error
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.frozen { // stopped while it began
		s.release()
		return
	}
	if r.open == nil {
		r.open = make(map[*sharedReads]struct{})
	}
	r.open[s] = struct{}{}
}

// watchCommit starts the watch of one commit: if done is not called
// within slowCommit, every shared read transaction ends and none begins
// until done.
func (b *Bolt) watchCommit() (done func()) {
	r := &b.readers
	r.mu.Lock()
	r.commit++
	n := r.commit
	r.mu.Unlock()
	t := time.AfterFunc(slowCommit, func() { b.stopSharing(n) })
	return func() {
		t.Stop()
		r.mu.Lock()
		r.commit++ // a timer that fires late finds another commit
		r.frozen = false
		r.mu.Unlock()
	}
}

// stopSharing ends every shared read transaction of b and lets none begin
// until the commit numbered commit is done (commit 0: for good, at Close);
// once that commit is done it does nothing.
func (b *Bolt) stopSharing(commit int64) {
	r := &b.readers
	r.mu.Lock()
	if commit != 0 && commit != r.commit {
		r.mu.Unlock()
		return
	}
	r.frozen = true
	open := r.open
	r.open = nil
	r.mu.Unlock()
	for s := range open {
		s.mu.Lock()
		s.release()
		s.mu.Unlock()
	}
}

// reading is what a read of the key space sees: the kv bucket of a shared
// read transaction or of one of its own.
type reading struct {
	kv *bolt.Bucket
	at *bolt.Cursor // the shared transaction's cursor; nil in one of its own
}

// get is kv's value of key, nil when absent.
func (r reading) get(key []byte) []byte {
	if r.at == nil {
		return r.kv.Get(key)
	}
	k, v := r.at.Seek(key)
	if string(k) != string(key) {
		return nil
	}
	return v
}

// read runs f in ctx's shared read transaction of b when ctx carries one
// that is (or can be) open, else in a guarded read transaction of its own.
func (b *Bolt) read(ctx context.Context, op string, f func(r reading) error) error {
	if s, _ := ctx.Value(sharedKey{}).(*sharedReads); s != nil && s.b == b {
		s.mu.Lock()
		if s.tx == nil && !s.ended {
			s.begin()
		}
		if s.tx != nil {
			defer s.mu.Unlock()
			if b.closed.Load() {
				return ErrClosed
			}
			return guard(op, func() error { return f(reading{kv: s.kv, at: s.at}) })
		}
		s.mu.Unlock()
	}
	return b.view(op, func(tx *bolt.Tx) error { return f(reading{kv: tx.Bucket(bucketKV)}) })
}
