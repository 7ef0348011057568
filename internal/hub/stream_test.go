package hub

import (
	"bytes"
	"context"
	"errors"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

func TestStreamResumeWithoutMissingOrRepeating(t *testing.T) {
	s := NewStream(8, 0)
	for i := 0; i < 5; i++ {
		s.Publish(hubapi.Change{Kind: "test", ID: string(rune('a' + i))})
	}
	got, _, err := s.Read(2, 100, nil)
	mustNil(t, err)
	if len(got) != 3 || got[0].Seq != 3 || got[2].Seq != 5 {
		t.Fatalf("read after 2: %+v", got)
	}
	// the ring keeps 8: after 12 changes, seq 4 (needs 5..) is still readable, 3 is not
	for i := 0; i < 7; i++ {
		s.Publish(hubapi.Change{Kind: "test"})
	}
	if _, _, err := s.Read(4, 100, nil); err != nil {
		t.Fatalf("read after 4 of 12 with ring 8: %v", err)
	}
	if _, _, err := s.Read(3, 100, nil); !errors.Is(err, hubapi.ErrResync) {
		t.Fatalf("read below ring: %v, want ErrResync", err)
	}
	if _, _, err := s.Read(13, 100, nil); !errors.Is(err, hubapi.ErrResync) {
		t.Fatalf("read above head (another epoch's sequence): %v, want ErrResync", err)
	}
}

func TestStreamFollowDeliversInOrder(t *testing.T) {
	s := NewStream(1024, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	done := make(chan []uint64)
	go func() {
		var seen []uint64
		_ = s.Follow(ctx, 0, func(cs []hubapi.Change) error {
			for _, c := range cs {
				seen = append(seen, c.Seq)
			}
			if len(seen) >= 300 {
				return errors.New("enough")
			}
			return nil
		})
		done <- seen
	}()
	for i := 0; i < 300; i++ {
		s.Publish(hubapi.Change{Kind: "test"})
	}
	seen := <-done
	for i, seq := range seen {
		if seq != uint64(i+1) {
			t.Fatalf("position %d has seq %d", i, seq)
		}
	}
}

// heapAfterGC is the live heap after a collection.
func heapAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func TestStreamKeepsAtMostItsBytes(t *testing.T) {
	// 4,096 messages of the largest body (16 KiB) are 64 MiB: the ring kept
	// them all (its only bound was 65,536 changes) until it was bounded by
	// bytes as well.
	before := heapAfterGC()
	s := NewStream(0, 0)
	body := make([]byte, coord.MaxBody)
	for i := 0; i < 4096; i++ {
		s.Publish(hubapi.Change{Kind: hubapi.KindMessage, Data: bytes.Clone(body)})
	}
	grown := int64(heapAfterGC()) - int64(before)
	if grown > DefaultRingBytes+(2<<20) {
		t.Fatalf("the stream holds %d MiB after 4,096 changes of 16 KiB, want at most its %d MiB", grown>>20, DefaultRingBytes>>20)
	}
	changes, held := s.Kept()
	if held > DefaultRingBytes || changes < DefaultRingBytes/(coord.MaxBody+changeSlotBytes) {
		t.Fatalf("kept %d changes of %d bytes, want as many as fit in %d bytes", changes, held, DefaultRingBytes)
	}
	// What was let go of is resynced, what is kept resumes, as with the
	// count bound.
	oldest := s.Head() - uint64(changes) + 1
	if _, _, err := s.Read(oldest-2, 1, nil); !errors.Is(err, hubapi.ErrResync) {
		t.Fatalf("read below the kept bytes: %v, want ErrResync", err)
	}
	got, _, err := s.Read(oldest-1, 1, nil)
	mustNil(t, err)
	if len(got) != 1 || got[0].Seq != oldest {
		t.Fatalf("read after %d: %+v, want seq %d", oldest-1, got, oldest)
	}
	runtime.KeepAlive(s)
}

func TestStreamGrowsByNeedUpToItsSize(t *testing.T) {
	// An empty stream used to allocate its 65,536 slots (7.7 MB) up front.
	before := heapAfterGC()
	s := NewStream(0, 0)
	if grown := int64(heapAfterGC()) - int64(before); grown > 1<<20 {
		t.Fatalf("an empty stream holds %d KiB", grown>>10)
	}
	runtime.KeepAlive(s)
	// Growing keeps every change in order, and the size still bounds it.
	s = NewStream(3000, 0)
	for i := 1; i <= 5000; i++ {
		s.Publish(hubapi.Change{Kind: "test", ID: strconv.Itoa(i)})
	}
	if changes, _ := s.Kept(); changes != 3000 {
		t.Fatalf("kept %d changes, want the size 3000", changes)
	}
	got, _, err := s.Read(2000, 5000, nil)
	mustNil(t, err)
	for i, c := range got {
		if want := 2001 + i; c.Seq != uint64(want) || c.ID != strconv.Itoa(want) {
			t.Fatalf("position %d: seq %d id %s, want %d", i, c.Seq, c.ID, want)
		}
	}
	if len(got) != 3000 {
		t.Fatalf("read %d changes after 2000, want 3000", len(got))
	}
	if _, _, err := s.Read(1999, 1, nil); !errors.Is(err, hubapi.ErrResync) {
		t.Fatalf("read below the size: %v, want ErrResync", err)
	}
}
