package hub

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// DefaultRingSize is how many recent changes a stream keeps for resuming.
const DefaultRingSize = 1 << 16

// Stream numbers changes and keeps the most recent in a ring, so readers
// can start at any kept sequence and resume after a disconnect without
// missing or repeating one.
type Stream struct {
	epoch string

	mu   sync.Mutex
	ring []hubapi.Change
	head uint64        // seq of the last published change; 0 before any
	wake chan struct{} // closed and replaced on every publish
}

// NewStream returns an empty stream of a fresh epoch keeping size changes.
func NewStream(size int) *Stream {
	if size <= 0 {
		size = DefaultRingSize
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &Stream{epoch: hex.EncodeToString(b[:]), ring: make([]hubapi.Change, size), wake: make(chan struct{})}
}

// Epoch identifies this hub run; sequences of different epochs do not compare.
func (s *Stream) Epoch() string { return s.epoch }

// Head is the sequence of the last published change.
func (s *Stream) Head() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.head
}

// Publish numbers the changes in order and wakes every reader.
func (s *Stream) Publish(cs ...hubapi.Change) {
	if len(cs) == 0 {
		return
	}
	s.mu.Lock()
	for _, c := range cs {
		s.head++
		c.Seq, c.Epoch = s.head, s.epoch
		s.ring[s.head%uint64(len(s.ring))] = c
	}
	close(s.wake)
	s.wake = make(chan struct{})
	s.mu.Unlock()
}

// Read returns up to max changes after seq (appending to buf), and a
// channel closed when more arrive. A seq below the kept ring, or above the
// head, is ErrResync.
func (s *Stream) Read(after uint64, max int, buf []hubapi.Change) ([]hubapi.Change, <-chan struct{}, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	size := uint64(len(s.ring))
	if after > s.head || s.head > size && after < s.head-size {
		return buf, nil, fmt.Errorf("read after %d (kept %d..%d): %w", after, s.oldestLocked(), s.head, hubapi.ErrResync)
	}
	for seq := after + 1; seq <= s.head && len(buf) < max; seq++ {
		buf = append(buf, s.ring[seq%size])
	}
	return buf, s.wake, nil
}

func (s *Stream) oldestLocked() uint64 {
	if size := uint64(len(s.ring)); s.head > size {
		return s.head - size + 1
	}
	return 1
}

// Follow calls fn with each batch of changes after seq until ctx ends, fn
// fails, or the reader falls behind the ring (ErrResync).
func (s *Stream) Follow(ctx context.Context, after uint64, fn func([]hubapi.Change) error) error {
	var buf []hubapi.Change
	for {
		batch, wake, err := s.Read(after, 512, buf[:0])
		if err != nil {
			return err
		}
		if len(batch) > 0 {
			if err := fn(batch); err != nil {
				return err
			}
			after = batch[len(batch)-1].Seq
			buf = batch
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-wake:
		}
	}
}
