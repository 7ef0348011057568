package store

import (
	"bytes"
	"context"
	"fmt"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// watchBatch is about how many log entries a watcher copies per read
// transaction. It reads whole revisions and sends only after the read
// transaction ends: an open read transaction would hold off the writer's
// remap of a growing file, and a slow watcher must only slow itself.
const watchBatch = 256

// Watch delivers every event under prefix with a revision above afterRev
// (0: from the oldest kept), in revision order and in op order within one,
// first from the change log, then live. The channel is closed when ctx ends,
// when the store closes, or when the watcher fell so far behind that the
// history it still needed was trimmed; a caller whose ctx is still live
// calls Watch again from the last revision it saw, and gets either the rest
// or ErrCompacted (then it re-reads with List).
func (b *Bolt) Watch(ctx context.Context, prefix string, afterRev int64) (<-chan Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	afterRev = max(afterRev, 0)
	var compacted int64
	err := b.view("watch "+prefix, func(tx *bolt.Tx) (err error) {
		compacted, err = getU64(tx.Bucket(bucketMeta), keyCompacted)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("watch %q: %w", prefix, err)
	}
	if afterRev < compacted {
		return nil, fmt.Errorf("watch %q after revision %d: history starts after revision %d: %w",
			prefix, afterRev, compacted, ErrCompacted)
	}
	b.mu.Lock()
	if b.closed.Load() {
		b.mu.Unlock()
		return nil, ErrClosed
	}
	b.watchers.Add(1)
	b.mu.Unlock()
	out := make(chan Event, 16)
	go b.follow(ctx, []byte(prefix), afterRev+1, out)
	return out, nil
}

// follow is the watcher goroutine: read from the log, send, wait for a commit.
func (b *Bolt) follow(ctx context.Context, prefix []byte, next int64, out chan<- Event) {
	defer b.watchers.Done()
	defer close(out)
	for {
		// Take the notification before reading, so that a commit landing
		// after the read still wakes us.
		changed := b.changed.wait()
		events, after, more, err := b.readLog(prefix, next)
		if err != nil {
			return
		}
		for _, ev := range events {
			select {
			case out <- ev:
			case <-ctx.Done():
				return
			case <-b.closing:
				return
			}
		}
		next = after
		if more {
			continue
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return
		case <-b.closing:
			return
		}
	}
}

// readLog copies the events under prefix of whole revisions from rev next on,
// about watchBatch log entries' worth. It returns the revision to read next
// and whether the log holds more. A trimmed revision it still needed is an
// ErrCompacted error.
func (b *Bolt) readLog(prefix []byte, next int64) (events []Event, after int64, more bool, err error) {
	after = next
	err = b.view("read the change log", func(tx *bolt.Tx) error {
		compacted, err := getU64(tx.Bucket(bucketMeta), keyCompacted)
		if err != nil {
			return err
		}
		if next <= compacted {
			return fmt.Errorf("revision %d: %w", next, ErrCompacted)
		}
		c := tx.Bucket(bucketLog).Cursor()
		n := 0
		for k, v := c.Seek(logKey(next, 0)); k != nil; k, v = c.Next() {
			rev := logRev(k)
			if rev != after-1 && n >= watchBatch {
				more = true
				return nil
			}
			key, value, err := splitEvent(v)
			if err != nil {
				return err
			}
			if n := len(events); n > 0 && events[n-1].Rev != rev {
				events[n-1].Last = true
			}
			if bytes.HasPrefix(key, prefix) {
				ev := Event{Rev: rev, Key: string(key), Delete: v[0]&eventDelete != 0}
				if !ev.Delete {
					ev.Value = bytes.Clone(value)
				}
				events = append(events, ev)
			}
			after = rev + 1
			n++
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
