package sshconsole

import (
	"context"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// connRate is a token bucket of connections: perMinute tokens, refilled
// evenly over a minute. One bucket for the server, so its memory is fixed
// whatever the number of sources.
type connRate struct {
	now func() time.Time

	mu     sync.Mutex
	tokens float64
	max    float64
	last   time.Time
}

func newConnRate(perMinute int, now func() time.Time) *connRate {
	return &connRate{now: now, tokens: float64(perMinute), max: float64(perMinute), last: now()}
}

// allow takes a token for one connection, or reports there is none.
func (r *connRate) allow() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	r.tokens = min(r.max, r.tokens+now.Sub(r.last).Minutes()*r.max)
	r.last = now
	if r.tokens < 1 {
		return false
	}
	r.tokens--
	return true
}

// idleInput is a session's input that remembers when its human last typed.
type idleInput struct {
	r    io.Reader
	last atomic.Int64 // unix nanoseconds of the last read
}

func (in *idleInput) Read(p []byte) (int, error) {
	n, err := in.r.Read(p)
	if n > 0 {
		in.last.Store(time.Now().UnixNano())
	}
	return n, err
}

// watchIdle returns r, watched: when nothing is read from it for idle,
// expired is called once. The output a console writes (live updates) does
// not count: only the human's keys keep a session alive.
func watchIdle(ctx context.Context, r io.Reader, idle time.Duration, expired func()) io.Reader {
	in := &idleInput{r: r}
	in.last.Store(time.Now().UnixNano())
	go func() {
		t := time.NewTicker(min(idle/4, time.Second))
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if time.Since(time.Unix(0, in.last.Load())) >= idle {
					expired()
					return
				}
			}
		}
	}()
	return in
}
