// Package boltstore is the store.Store in one bbolt file: the installation's
// database when one hub owns it. Records carry a checksum, values pass
// through the one value codec (codec.go), writers share fsyncs through group
// commit, and watchers follow a change log kept in the file.
package boltstore

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/virgo-hub/virgo-tui/internal/shares"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// Store is the store.Store in one bbolt file, owned by one process at a time (bbolt
// locks the file). Writers share fsyncs through group commit (txn.go);
// watchers follow the change log (watch.go).
type Store struct {
	path         string
	db           *bolt.DB
	history      int
	historyBytes int64

	rev    atomic.Int64 // revision of the last committed Txn
	closed atomic.Bool

	mu         sync.Mutex
	idle       sync.Cond // signalled when committing turns false
	queue      []*request
	committing bool

	changed  notifier
	closing  chan struct{}
	watchers sync.WaitGroup

	txns, commits atomic.Int64
	commitNanos   atomic.Int64 // summed wall time of commits (Stats.CommitTime)

	walkedAtOpen bool // the open walked every page (cleanclose.go)
}

var _ store.Store = (*Store)(nil)

// Path is the database file the store was opened from.
func (b *Store) Path() string { return b.path }

// Get returns one key, or ErrNotFound.
func (b *Store) Get(ctx context.Context, key string) (store.KV, error) {
	if err := ctx.Err(); err != nil {
		return store.KV{}, err
	}
	var kv store.KV
	var found bool
	// "get", not "get "+key: the name is only read if bbolt panics, and
	// the error below names the key; a Get runs several times per request.
	err := b.view("get", func(tx *bolt.Tx) error {
		k := []byte(key)
		raw := tx.Bucket(bucketKV).Get(k)
		if raw == nil {
			return nil
		}
		found = true
		var err error
		kv, err = decodeKV(k, raw)
		return err
	})
	switch {
	case err != nil:
		return store.KV{}, fmt.Errorf("get %q: %w", key, err)
	case !found:
		return store.KV{}, store.NotFound(key)
	}
	return kv, nil
}

// minDecodeShare is the fewest records a list checks and expands on a
// goroutine of their own: below it a goroutine costs more than it saves.
const minDecodeShare = 512

// List returns every key with the prefix, in key order, from one snapshot.
func (b *Store) List(ctx context.Context, prefix string) ([]store.KV, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []store.KV
	p := []byte(prefix)
	op := "list " + prefix
	err := b.view(op, func(tx *bolt.Tx) error {
		// The records are found first, then checked, expanded and copied
		// out of the file a share per processor: that is most of a large
		// list's time. Each share reads the file under its own guard.
		var raw [][2][]byte
		c := tx.Bucket(bucketKV).Cursor()
		for k, v := c.Seek(p); k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
			raw = append(raw, [2][]byte{k, v})
		}
		out = make([]store.KV, len(raw))
		return shares.Do(len(raw), minDecodeShare, func(lo, hi int) error {
			return guard(op, func() (err error) {
				for i := lo; i < hi; i++ {
					if out[i], err = decodeKV(raw[i][0], raw[i][1]); err != nil {
						return err
					}
				}
				return nil
			})
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list %q: %w", prefix, err)
	}
	return out, nil
}

// Range returns one page of the keys with the prefix after the key after,
// from one snapshot (see Store.Range).
func (b *Store) Range(ctx context.Context, prefix, after string, limit int) ([]store.KV, bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	if limit <= 0 {
		return nil, false, fmt.Errorf("range %q: limit %d: %w: a page holds at least one key", prefix, limit, store.ErrInvalidOp)
	}
	var out []store.KV
	more := false
	p := []byte(prefix)
	err := b.view("range "+prefix, func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketKV).Cursor()
		k, v := c.Seek(p)
		if after > prefix {
			k, v = c.Seek([]byte(after))
			if k != nil && string(k) == after {
				k, v = c.Next()
			}
		}
		for ; k != nil && bytes.HasPrefix(k, p); k, v = c.Next() {
			if len(out) == limit {
				more = true
				return nil
			}
			kv, err := decodeKV(k, v)
			if err != nil {
				return err
			}
			out = append(out, kv)
		}
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("range %q: %w", prefix, err)
	}
	return out, more, nil
}

// Rev is the revision of the last committed transaction.
func (b *Store) Rev(ctx context.Context) (int64, error) {
	if b.closed.Load() {
		return 0, store.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return b.rev.Load(), nil
}

// Stats is a snapshot of the store for the hub's status view.
type Stats struct {
	Path string
	// Rev is the revision of the last committed transaction.
	Rev int64
	// Compacted is the highest revision trimmed from the change log: a
	// Watch from below it fails with ErrCompacted.
	Compacted int64
	// LogEntries is the number of events kept for Watch, LogBytes their
	// size (keys and entries, before bbolt's overhead).
	LogEntries, LogBytes int64
	// FileSize is the size of the database file in bytes.
	FileSize int64
	// Txns counts transactions that wrote since open; Commits counts the
	// bbolt commits (fsyncs) that carried them. Txns/Commits is the
	// group-commit factor.
	Txns, Commits int64
	// PageWrites counts bbolt's page writes since open (a node spanning
	// several pages is one write; each commit adds one for its meta page):
	// what a commit costs on disk, independent of the machine's load.
	PageWrites int64
	// CommitTime is the wall time the store has spent committing since
	// open: from a group's start to its answers, summed. Commits are
	// serial, so CommitTime over a run's wall time is the share of it the single committer was busy —
	// near 1, the commit is what sets the rate. WriteTime is the part of
	// it bbolt spent writing pages and its meta page and syncing both
	// (and, on a busy machine, waiting for a CPU after each sync).
	CommitTime, WriteTime time.Duration
	// WalkedAtOpen says whether the open walked every page of the file;
	// it did not when the file was as its last clean close left it
	// (docs/store.md, "Before the file is mapped").
	WalkedAtOpen bool
}

// Stats reads the counters of the store.
func (b *Store) Stats() (Stats, error) {
	db := b.db.Stats()
	s := Stats{Path: b.path, Txns: b.txns.Load(), Commits: b.commits.Load(), PageWrites: db.TxStats.GetWrite(),
		CommitTime: time.Duration(b.commitNanos.Load()), WriteTime: db.TxStats.GetWriteTime(), WalkedAtOpen: b.walkedAtOpen}
	err := b.view("stats", func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		var err error
		for _, c := range []struct {
			key []byte
			to  *int64
		}{{keyRev, &s.Rev}, {keyCompacted, &s.Compacted}, {keyLogN, &s.LogEntries}, {keyLogBytes, &s.LogBytes}} {
			if *c.to, err = getCounter(meta, c.key); err != nil {
				return err
			}
		}
		s.FileSize = tx.Size()
		return nil
	})
	return s, err
}

// Close waits for the commits in flight (queued transactions are still
// committed), ends every watch by closing its channel, and releases the
// file. Later calls on the store return ErrClosed.
func (b *Store) Close() error {
	b.mu.Lock()
	if b.closed.Load() {
		b.mu.Unlock()
		return store.ErrClosed
	}
	b.closed.Store(true)
	for b.committing {
		b.idle.Wait()
	}
	b.mu.Unlock()
	close(b.closing)
	b.watchers.Wait()
	// Every commit is synced and none can follow: the file is as the next
	// open will find it unless something else writes it.
	recordCleanClose(b.path)
	if err := b.db.Close(); err != nil {
		return fmt.Errorf("close %s: %w", b.path, err)
	}
	return nil
}
