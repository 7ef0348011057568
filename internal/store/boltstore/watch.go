package boltstore

import (
	"bytes"
	"context"
	"fmt"
	"sync"

	bolt "go.etcd.io/bbolt"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// watchBatch is about how many log entries a watcher copies per read
// transaction. It reads whole revisions and sends only after the read
// transaction ends: an open read transaction would hold off the writer's
// remap of a growing file, and a slow watcher must only slow itself.
const watchBatch = 256

// Watch delivers every event under prefix with a revision above afterRev
// (0: from the oldest kept), in revision order and in op order within one,
// first from the change log, then live. The log names the keys written, not
// their values: a put's value is read from its record when the watcher
// reaches it, and a put that a later write already replaced is left out
// (the later write's event follows), so a watcher sees every key's latest
// state in order, not every value a key ever held. A damaged record or log
// entry fails the Watch call with ErrRecordDamaged when it is the first
// thing to read, and ends the channel when met later, so the caller's next
// Watch reports it. The channel is closed when ctx ends,
// when the store closes, or when the watcher fell so far behind that the
// history it still needed was trimmed; a caller whose ctx is still live
// calls Watch again from the last revision it saw, and gets either the rest
// or ErrCompacted (then it re-reads with List).
func (b *Store) Watch(ctx context.Context, prefix string, afterRev int64) (<-chan store.Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	afterRev = max(afterRev, 0)
	var compacted int64
	err := b.view("watch "+prefix, func(tx *bolt.Tx) (err error) {
		compacted, err = getCounter(tx.Bucket(bucketMeta), keyCompacted)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("watch %q: %w", prefix, err)
	}
	if afterRev < compacted {
		return nil, fmt.Errorf("watch %q after revision %d: history starts after revision %d: %w",
			prefix, afterRev, compacted, store.ErrCompacted)
	}
	// Take the notification before the first read, so that a commit
	// landing after it still wakes the watcher.
	changed := b.changed.wait()
	first, after, more, err := b.readLog([]byte(prefix), afterRev+1)
	if err != nil {
		return nil, fmt.Errorf("watch %q after revision %d: %w", prefix, afterRev, err)
	}
	b.mu.Lock()
	if b.closed.Load() {
		b.mu.Unlock()
		return nil, store.ErrClosed
	}
	b.watchers.Add(1)
	b.mu.Unlock()
	out := make(chan store.Event, 16)
	go b.follow(ctx, []byte(prefix), batch{first, after, more, changed}, out)
	return out, nil
}

// batch is what one readLog found, and the notification taken before it.
type batch struct {
	events  []store.Event
	after   int64
	more    bool
	changed <-chan struct{}
}

// follow is the watcher goroutine: send what was read, wait for a commit,
// read from the log.
func (b *Store) follow(ctx context.Context, prefix []byte, r batch, out chan<- store.Event) {
	defer b.watchers.Done()
	defer close(out)
	for {
		for _, ev := range r.events {
			select {
			case out <- ev:
			case <-ctx.Done():
				return
			case <-b.closing:
				return
			}
		}
		if !r.more {
			select {
			case <-r.changed:
			case <-ctx.Done():
				return
			case <-b.closing:
				return
			}
		}
		// Take the notification before reading, so that a commit
		// landing after the read still wakes us.
		r.changed = b.changed.wait()
		var err error
		if r.events, r.after, r.more, err = b.readLog(prefix, r.after); err != nil {
			return
		}
	}
}

// readLog copies the events under prefix of whole revisions from rev next on,
// about watchBatch log entries' worth, with the values of puts read from
// their records (see Watch). It returns the revision to read next and
// whether the log holds more. A trimmed revision it still needed is an
// ErrCompacted error; a damaged entry or record is ErrRecordDamaged.
func (b *Store) readLog(prefix []byte, next int64) (events []store.Event, after int64, more bool, err error) {
	after = next
	err = b.view("read the change log", func(tx *bolt.Tx) error {
		compacted, err := getCounter(tx.Bucket(bucketMeta), keyCompacted)
		if err != nil {
			return err
		}
		if next <= compacted {
			return fmt.Errorf("revision %d: %w", next, store.ErrCompacted)
		}
		// One cursor reads every value (kv.Get would make one per event).
		at := tx.Bucket(bucketKV).Cursor()
		c := tx.Bucket(bucketLog).Cursor()
		n := 0
		for k, v := c.Seek(logKey(next, 0)); k != nil; k, v = c.Next() {
			rev := logRev(k)
			if rev != after-1 && n >= watchBatch {
				more = true
				return nil
			}
			key, del, err := splitEvent(k, v)
			if err != nil {
				return err
			}
			after = rev + 1
			n++
			if !bytes.HasPrefix(key, prefix) {
				continue
			}
			ev := store.Event{Rev: rev, Delete: del}
			if del {
				ev.Key = string(key)
			} else {
				k, raw := at.Seek(key)
				if !bytes.Equal(k, key) {
					continue // deleted since; that event follows
				}
				rec, err := decodeKV(key, raw)
				switch {
				case err != nil:
					return err
				case rec.ModRev > rev:
					continue // written again since; that event follows
				case rec.ModRev < rev:
					return damaged(fmt.Sprintf("%s: the change log has it written at revision %d, the record at %d", showKey(key), rev, rec.ModRev))
				}
				ev.Key, ev.Value = rec.Key, rec.Value
			}
			if n := len(events); n > 0 && events[n-1].Rev != rev {
				events[n-1].Last = true
			}
			events = append(events, ev)
		}
		// Whole revisions are read, so the last one read is complete.
		if n := len(events); n > 0 {
			events[n-1].Last = true
		}
		return nil
	})
	return events, after, more, err
}

// notifier wakes every watcher after a commit: a channel closed and replaced
// on each broadcast, made only when someone waits.
type notifier struct {
	mu sync.Mutex
	ch chan struct{}
}

func (n *notifier) wait() <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ch == nil {
		n.ch = make(chan struct{})
	}
	return n.ch
}

func (n *notifier) broadcast() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ch != nil {
		close(n.ch)
		n.ch = nil
	}
}
