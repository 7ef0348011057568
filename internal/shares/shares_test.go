package shares

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
)

func TestDoCoversEveryIndexOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, n := range []int{0, 1, 7, 8, 9, 100, 1001} {
		seen := make([]atomic.Int32, n)
		var calls atomic.Int32
		err := Do(n, 2, func(lo, hi int) error {
			calls.Add(1)
			for i := lo; i < hi; i++ {
				seen[i].Add(1)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for i := range seen {
			if c := seen[i].Load(); c != 1 {
				t.Fatalf("n=%d: index %d done %d times", n, i, c)
			}
		}
		if want := min(4, max(n/2, 1)); n >= 4 && int(calls.Load()) != want {
			t.Errorf("n=%d: %d shares, want %d", n, calls.Load(), want)
		}
	}
}

func TestDoKeepsSmallWorkOnOneShare(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	var calls atomic.Int32
	Do(100, 60, func(lo, hi int) error {
		calls.Add(1)
		if lo != 0 || hi != 100 {
			t.Errorf("share [%d, %d), want [0, 100)", lo, hi)
		}
		return nil
	})
	if calls.Load() != 1 {
		t.Errorf("%d shares for 100 indices of at least 60, want 1", calls.Load())
	}
}

func TestDoReturnsTheFirstFailedShare(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	err := Do(100, 10, func(lo, hi int) error {
		if lo >= 25 {
			return fmt.Errorf("share at %d: %w", lo, errBad)
		}
		return nil
	})
	if !errors.Is(err, errBad) || err.Error() != "share at 25: bad" {
		t.Fatalf("got %v, want the share at 25's error", err)
	}
}

var errBad = errors.New("bad")
