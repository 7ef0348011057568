package hubclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// ErrNoHub: no hub answered on the home's socket within the retry budget
// (no socket, nobody listening on it, or every connection broke).
var ErrNoHub = errors.New("no hub is running for this home; start one with `virgo-tui serve`")

// DefaultRetryBudget is how long one call keeps trying to reach a hub
// before it fails with ErrNoHub: long enough for a hub to start or to hand
// over to another on the same home, short enough that a command without a
// hub says so promptly.
const DefaultRetryBudget = 5 * time.Second

// RetryBudgetEnv overrides DefaultRetryBudget with a duration ("10s"; "0"
// tries each call once).
const RetryBudgetEnv = "VIRGO_HUB_RETRY"

// ErrBadRetryBudget: $VIRGO_HUB_RETRY is not a duration of 0 or more.
var ErrBadRetryBudget = errors.New("a hub retry budget is a duration of 0 or more, such as 5s or 500ms")

// Backoff between attempts: doubling from the first wait up to the
// largest, each with up to a quarter of jitter so that a herd of clients
// does not come back in step.
const (
	firstWait = 5 * time.Millisecond
	maxWait   = 250 * time.Millisecond
)

// retryBudgetFromEnv is $VIRGO_HUB_RETRY, else DefaultRetryBudget.
func retryBudgetFromEnv() (time.Duration, error) {
	s := os.Getenv(RetryBudgetEnv)
	if s == "" {
		return DefaultRetryBudget, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%s=%q: %w", RetryBudgetEnv, s, ErrBadRetryBudget)
	}
	return d, nil
}

// transportClass names the transport failure err is, or "" when err is not
// one (an answer of the hub, a bad request, a cancelled context). Every
// class is safe to retry: a request that failed so either never reached a
// hub, or carries an Idempotency-Key the hub answers a repeat of with the
// original result.
func transportClass(err error) string {
	var ae *hubapi.APIError
	switch {
	case errors.As(err, &ae):
		switch ae.Code {
		case hubapi.CodeOf(hubapi.ErrShuttingDown):
			return "hub stopping"
		case hubapi.CodeOf(hubapi.ErrTooManyConnections), hubapi.CodeOf(hubapi.ErrRateLimited):
			// Refused before any use case ran: nothing was applied.
			return hubBusy
		}
		return ""
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return ""
	case errors.Is(err, syscall.ENOENT), errors.Is(err, os.ErrNotExist):
		return "no socket"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.Is(err, syscall.EPIPE):
		return "broken pipe"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed"
	}
	return ""
}

// hubBusy is the class of a request the hub refused at its connection or
// rate limits, before anything ran.
const hubBusy = "hub busy"

// noHubClass reports whether a transport class means nobody serves the
// socket, so that starting a hub may help.
func noHubClass(class string) bool { return class == "no socket" || class == "connection refused" }

// attempts is what one call tried, for its final error.
type attempts struct {
	n       int
	classes []string // in first-seen order
	counts  map[string]int
	started string // what starting a hub gave, if it was tried
	last    error
}

func (a *attempts) record(class string, err error) {
	a.n++
	a.last = err
	if a.counts == nil {
		a.counts = map[string]int{}
	}
	if a.counts[class] == 0 {
		a.classes = append(a.classes, class)
	}
	a.counts[class]++
}

// mayHaveApplied warns, for a write whose connection broke after it was
// sent, that the hub may have committed it before it went away.
func (a *attempts) mayHaveApplied(what string) string {
	if strings.HasPrefix(what, "GET ") {
		return ""
	}
	for _, c := range a.classes {
		if !noHubClass(c) && c != hubBusy {
			return " (the hub may have applied it before the connection broke: check before repeating it)"
		}
	}
	return ""
}

// describe is "3 attempts over 1.2s (connection refused ×2, connection reset ×1)".
func (a *attempts) describe(spent time.Duration) string {
	parts := make([]string, len(a.classes))
	for i, c := range a.classes {
		parts[i] = fmt.Sprintf("%s ×%d", c, a.counts[c])
	}
	s := fmt.Sprintf("%d attempt", a.n)
	if a.n != 1 {
		s += "s"
	}
	s += fmt.Sprintf(" over %v (%s)", spent.Round(time.Millisecond), strings.Join(parts, ", "))
	if a.started != "" {
		s += "; starting a hub here: " + a.started
	}
	return s
}

// retry runs try until it succeeds, fails with something other than a
// transport error, or the client's retry budget is spent. It is the one
// place a client decides to try again: every call, stream and dial goes
// through it. When nobody serves the socket and the client has a starter,
// it starts a hub in this process (one at a time) before the next try.
func (c *Client) retry(ctx context.Context, what string, try func(ctx context.Context) error) error {
	start := time.Now()
	var tried attempts
	for wait := firstWait; ; wait = min(2*wait, maxWait) {
		err := try(ctx)
		class := transportClass(err)
		if class == "" {
			return err
		}
		tried.record(class, err)
		pause := wait - time.Duration(rand.Int64N(int64(wait)/4+1))
		if time.Since(start)+pause > c.budget {
			return fmt.Errorf("%s: %w: no answer from the hub on %s after %s; last: %w%s",
				what, ErrNoHub, c.socket, tried.describe(time.Since(start)), tried.last, tried.mayHaveApplied(what))
		}
		if noHubClass(class) {
			started, serr := c.startHub(ctx)
			if serr != nil && !errors.Is(serr, hubapi.ErrHubRunning) {
				return fmt.Errorf("%s: no hub answered on %s, and starting one failed: %w", what, c.socket, serr)
			}
			if serr != nil {
				tried.started = serr.Error()
			}
			if started {
				continue
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w (after %s)", what, ctx.Err(), tried.describe(time.Since(start)))
		case <-time.After(pause):
		}
	}
}

// startHub starts a hub in this process with the client's starter, if it
// has one; one start at a time, and Close stops every hub started.
func (c *Client) startHub(ctx context.Context) (started bool, err error) {
	if c.starter == nil {
		return false, nil
	}
	c.startMu.Lock()
	defer c.startMu.Unlock()
	if c.closed {
		return false, nil
	}
	stop, err := c.starter(ctx)
	if err != nil {
		return false, err
	}
	c.stops = append(c.stops, stop)
	return true, nil
}
