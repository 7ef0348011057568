package hub

import (
	"log/slog"
	"sync"
	"time"
)

// retryLog reports a failure that a loop of the hub tries again: as an
// error when it first happens, and once more, with how long and how many
// tries it took, when it clears; the tries between are logged at the debug
// level. A store outage of a minute would otherwise write a line a second
// for each loop (the presence flush, each operator's enrolment).
type retryLog struct {
	log  *slog.Logger
	what string

	mu    sync.Mutex
	since time.Time // the first failed try of the current run of them
	tries int       // failed tries since the last success
}

// newRetryLog returns the retry log of what, a loop's work ("presence
// flush").
func newRetryLog(log *slog.Logger, what string) *retryLog {
	return &retryLog{log: log, what: what}
}

// failed records one failed try, with attrs that say what it was about.
func (r *retryLog) failed(err error, attrs ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tries++
	attrs = append(attrs, "err", err)
	if r.tries == 1 {
		r.since = time.Now()
		r.log.Error(r.what+" failed; the hub tries again (and logs when it succeeds)", attrs...)
		return
	}
	r.log.Debug(r.what+" failed again", append(attrs, "tries", r.tries)...)
}

// succeeded records a try that worked; after failed ones it says so once.
func (r *retryLog) succeeded() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tries == 0 {
		return
	}
	r.log.Info(r.what+" succeeded again", "failed_tries", r.tries, "after", time.Since(r.since).Round(time.Millisecond))
	r.tries = 0
}
