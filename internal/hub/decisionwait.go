package hub

import (
	"net/http"
	"sync"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// decisionWaits wakes the requests that wait for a confirmation's decision
// (GET /v1/confirmations/{id}?wait=): the store watch tells it of every
// confirmation it sees decided, withdrawn or expired, whichever hub on the
// store committed it. A waiter is a channel, not a poll: a runtime waiting
// for its human costs nothing until the decision comes. Its zero value is
// ready to use.
type decisionWaits struct {
	mu      sync.Mutex
	waiting map[string]*decisionWait
}

// decisionWait is one confirmation's waiters: decided is closed when it
// is seen terminal; n counts the requests holding it.
type decisionWait struct {
	decided chan struct{}
	n       int
}

// wait returns a channel closed once the watch sees confirmation id
// terminal, and leave, which the caller calls when it stops waiting (the
// entry goes with its last waiter, so ids waited on and never decided do
// not pile up).
func (d *decisionWaits) wait(id string) (decided <-chan struct{}, leave func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.waiting == nil {
		d.waiting = make(map[string]*decisionWait)
	}
	w := d.waiting[id]
	if w == nil {
		w = &decisionWait{decided: make(chan struct{})}
		d.waiting[id] = w
	}
	w.n++
	return w.decided, func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		if w.n--; w.n == 0 && d.waiting[id] == w {
			delete(d.waiting, id)
		}
	}
}

// decide wakes the requests waiting on id: it was seen terminal.
func (d *decisionWaits) decide(id string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if w := d.waiting[id]; w != nil {
		close(w.decided)
		delete(d.waiting, id)
	}
}

// waitOf reads a request's ?wait= duration (0 without one): positive and at
// most the confirmation_wait limit.
func waitOf(r *http.Request) (time.Duration, error) {
	s := r.URL.Query().Get("wait")
	if s == "" {
		return 0, nil
	}
	wait, err := time.ParseDuration(s)
	if err != nil {
		return 0, hubapi.Errorf(hubapi.ErrBadQuery, "wait: %q is not a duration (for example 30s)", s)
	}
	limit := time.Duration(hubapi.LimitOf("confirmation_wait").Max) * time.Second
	if wait <= 0 || wait > limit {
		return 0, hubapi.Errorf(hubapi.ErrBadQuery, "wait: %s is out of range: more than 0 and at most %s", wait, limit)
	}
	return wait, nil
}
