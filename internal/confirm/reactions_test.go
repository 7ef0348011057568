package confirm

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// Spec: "Human-surface reactions return a definitive terminal result:
// applied: true or applied: false with a reason. unknown is not a terminal
// success and remains retryable under the same correlation id."
func TestDefinitiveReactionOutcomes(t *testing.T) {
	ctx := context.Background()
	s, _ := openStore(t)
	r := NewReactions(s, newClock().Now)
	me := PersonaPrincipal("root/secretary")
	calls := 0
	flaky := func(context.Context) Outcome {
		calls++
		if calls < 3 {
			return Unknown // the surface did not answer
		}
		return Applied()
	}
	for i := 1; i <= 2; i++ {
		o, err := r.Do(ctx, me, "react-1", flaky)
		if err != nil || o.Known {
			t.Fatalf("attempt %d: %+v, %v (unknown is never terminal)", i, o, err)
		}
	}
	o, err := r.Do(ctx, me, "react-1", flaky)
	if err != nil || !o.Known || !o.Applied {
		t.Fatalf("third attempt: %+v, %v", o, err)
	}
	// Terminal now: later retries return it without applying again.
	o, err = r.Do(ctx, me, "react-1", func(context.Context) Outcome { return NotApplied("would change the result") })
	if err != nil || !o.Applied || calls != 3 {
		t.Fatalf("retry after terminal: %+v, %v, %d calls", o, err, calls)
	}
	if got, _ := r.Get(ctx, me, "react-1"); !got.Applied {
		t.Fatalf("stored: %+v", got)
	}
	// applied:false carries its reason and is as terminal.
	o, _ = r.Do(ctx, me, "react-2", func(context.Context) Outcome { return NotApplied("message deleted") })
	if o.Applied || o.Reason != "message deleted" || !o.Known {
		t.Fatalf("not applied: %+v", o)
	}
	// Concurrent retries under one id end in one terminal result.
	var n atomic.Int32
	var wg sync.WaitGroup
	results := make([]Outcome, 16)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], _ = r.Do(ctx, me, "react-3", func(context.Context) Outcome {
				if n.Add(1)%2 == 0 {
					return NotApplied("even")
				}
				return Applied()
			})
		}()
	}
	wg.Wait()
	first, _ := r.Get(ctx, me, "react-3")
	for _, o := range results {
		if o.Applied != first.Applied || o.Reason != first.Reason {
			t.Fatalf("two terminal results: %+v and %+v", o, first)
		}
	}
}

// Reaction outcomes are keyed per requester, as confirmations are: two
// personas using the same correlation id get independent outcomes, and
// neither can read or settle the other's.
func TestReactionOutcomesArePerRequester(t *testing.T) {
	ctx := context.Background()
	s, _ := openStore(t)
	r := NewReactions(s, newClock().Now)
	secretary, coordinator := PersonaPrincipal("root/secretary"), PersonaPrincipal("work/coordinator")
	o, err := r.Do(ctx, secretary, "react-1", func(context.Context) Outcome { return Applied() })
	if err != nil || !o.Applied {
		t.Fatalf("secretary: %+v, %v", o, err)
	}
	if o, err := r.Get(ctx, coordinator, "react-1"); err != nil || o.Known {
		t.Fatalf("coordinator sees the secretary's outcome: %+v, %v", o, err)
	}
	applied := false
	o, err = r.Do(ctx, coordinator, "react-1", func(context.Context) Outcome {
		applied = true
		return NotApplied("message deleted")
	})
	if err != nil || !applied || o.Applied || o.Reason != "message deleted" {
		t.Fatalf("coordinator: %+v, %v (applied %v); want its own terminal result", o, err, applied)
	}
	if o, _ := r.Get(ctx, secretary, "react-1"); !o.Applied {
		t.Fatalf("the secretary's outcome changed: %+v", o)
	}
	if _, err := r.Do(ctx, Principal{}, "react-1", func(context.Context) Outcome { return Applied() }); !errors.Is(err, ErrBadPrincipal) {
		t.Fatalf("no requester: %v, want ErrBadPrincipal", err)
	}
}
