package demo

import (
	"context"
	"sync"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubclient"
)

// DefaultMaxPending is how many confirmations the demo keeps waiting: the
// runtimes ask only while fewer wait, so an operator who decides nothing
// sees a queue of about this size ("about 5–10" was the aim), and one who
// decides sees it refill within seconds.
const DefaultMaxPending = 8

// ConfirmTTL is how long a confirmation of the demo waits before it
// expires: short, so that old asks leave the queue on their own and new
// ones take their place while the operator watches.
const ConfirmTTL = 3 * time.Minute

// pacer keeps the number of waiting confirmations at or under a bound. It
// counts what the hub lists (refreshed each beat through the operator's
// client) plus the asks on their way, so concurrent runtimes cannot
// overshoot together. Without a client it counts only its own asks.
type pacer struct {
	max int
	mu  sync.Mutex
	// listed is the pending count the hub last listed, plus the asks queued
	// since; inflight the asks sent and not answered yet.
	listed, inflight int
}

// reserve says whether a runtime may ask now, and if so counts its ask.
func (p *pacer) reserve() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.listed+p.inflight >= p.max {
		return false
	}
	p.inflight++
	return true
}

// done records the answer to a reserved ask: queued when it now waits.
func (p *pacer) done(queued bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.inflight--
	if queued {
		p.listed++
	}
}

// refresh replaces the count with what the hub lists as pending. It holds
// the lock across the read, so no answer is counted between the read and
// the store (an answer landing during the read may count twice until the
// next refresh: the count errs high, never past the bound).
func (p *pacer) refresh(ctx context.Context, op *hubclient.Client) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	cs, err := op.Confirmations(ctx, false)
	if err != nil {
		return err
	}
	p.listed = len(cs)
	return nil
}

// run refreshes the count every period until ctx ends.
func (p *pacer) run(ctx context.Context, op *hubclient.Client, period time.Duration) error {
	for {
		if err := p.refresh(ctx, op); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(period):
		}
	}
}
