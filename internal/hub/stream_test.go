package hub

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

func TestStreamResumeWithoutMissingOrRepeating(t *testing.T) {
	s := NewStream(8)
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
	s := NewStream(1024)
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
