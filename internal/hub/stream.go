package hub

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"unsafe"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// DefaultRingSize is how many recent changes a stream keeps for resuming.
const DefaultRingSize = 1 << 16

// DefaultRingBytes is how much memory the kept changes may hold, counted as
// their payloads plus a ring slot each. A change's payload is a record as
// stored (a message of up to 16 KiB, a run event, a presence), so 65,536
// of them could hold a gigabyte that personas wrote. At this bound the ring
// keeps about 35,000 presence changes (about 330 bytes each: 35 s of
// 10,000 personas beating every 10 s), or 1,000 messages of the largest
// size; a reader resuming below what is kept resyncs from a snapshot.
const DefaultRingBytes = 16 << 20

// firstRingSlots is how many slots a stream starts with; it doubles as
// changes arrive, up to the ring's size, so that a hub holds the memory of
// the changes it keeps, not of the most it may keep.
const firstRingSlots = 1 << 10

// changeSlotBytes is what a kept change costs beside its payload: its slot
// in the ring.
const changeSlotBytes = int(unsafe.Sizeof(hubapi.Change{}))

// Stream numbers changes and keeps the most recent in a ring, so readers
// can start at any kept sequence and resume after a disconnect without
// missing or repeating one. It keeps at most size changes and, beyond the
// newest one, at most maxBytes of them (payload and slot).
type Stream struct {
	epoch    string
	size     int
	maxBytes int

	mu     sync.Mutex
	ring   []hubapi.Change // seq lives at seq % len(ring); grows to size
	head   uint64          // seq of the last published change; 0 before any
	oldest uint64          // seq of the oldest kept change; head+1 when none
	bytes  int             // payload and slot bytes of the kept changes
	wake   chan struct{}   // closed and replaced on every publish
}

// NewStream returns an empty stream of a fresh epoch keeping at most size
// changes (DefaultRingSize when 0 or less) and at most maxBytes of them
// (DefaultRingBytes when 0 or less).
func NewStream(size, maxBytes int) *Stream {
	if size <= 0 {
		size = DefaultRingSize
	}
	if maxBytes <= 0 {
		maxBytes = DefaultRingBytes
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &Stream{epoch: hex.EncodeToString(b[:]), size: size, maxBytes: maxBytes,
		ring: make([]hubapi.Change, min(size, firstRingSlots)), oldest: 1, wake: make(chan struct{})}
}

// Epoch identifies this hub run; sequences of different epochs do not compare.
func (s *Stream) Epoch() string { return s.epoch }

// Head is the sequence of the last published change.
func (s *Stream) Head() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.head
}

// Kept is how many changes the stream keeps now and the bytes they hold
// (payload and slot).
func (s *Stream) Kept() (changes, bytes int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return int(s.head + 1 - s.oldest), s.bytes
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
		// Room for c: a full ring grows up to size, and at size lets go
		// of its oldest change (whose slot c takes).
		if int(s.head-s.oldest) == len(s.ring) {
			if len(s.ring) < s.size {
				s.growLocked()
			} else {
				s.dropOldestLocked()
			}
		}
		s.ring[s.head%uint64(len(s.ring))] = c
		s.bytes += changeBytes(c)
		for s.bytes > s.maxBytes && s.oldest < s.head {
			s.dropOldestLocked()
		}
	}
	close(s.wake)
	s.wake = make(chan struct{})
	s.mu.Unlock()
}

// changeBytes is what keeping c costs.
func changeBytes(c hubapi.Change) int { return changeSlotBytes + len(c.Data) }

// growLocked doubles the ring (up to size), each kept change moving to its
// place in the larger one.
func (s *Stream) growLocked() {
	ring := make([]hubapi.Change, min(2*len(s.ring), s.size))
	for seq := s.oldest; seq <= s.head-1; seq++ {
		ring[seq%uint64(len(ring))] = s.ring[seq%uint64(len(s.ring))]
	}
	s.ring = ring
}

// dropOldestLocked forgets the oldest kept change, and its payload with it.
func (s *Stream) dropOldestLocked() {
	i := s.oldest % uint64(len(s.ring))
	s.bytes -= changeBytes(s.ring[i])
	s.ring[i] = hubapi.Change{}
	s.oldest++
}

// Read returns up to max changes after seq (appending to buf), and a
// channel closed when more arrive. A seq below the kept changes, or above
// the head, is ErrResync.
func (s *Stream) Read(after uint64, max int, buf []hubapi.Change) ([]hubapi.Change, <-chan struct{}, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if after > s.head || after+1 < s.oldest {
		return buf, nil, fmt.Errorf("read after %d (kept %d..%d): %w", after, s.oldest, s.head, hubapi.ErrResync)
	}
	size := uint64(len(s.ring))
	for seq := after + 1; seq <= s.head && len(buf) < max; seq++ {
		buf = append(buf, s.ring[seq%size])
	}
	return buf, s.wake, nil
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
