package hub

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// revocationCheck is how often an open stream asks whether its token still
// holds: well inside the one second in which a deleted operator token, a
// retired persona or a rotated token must end it.
const revocationCheck = 250 * time.Millisecond

// errTokenRevoked is the cause of a stream's context ended by untilRevoked,
// told apart from the connection closing or the hub shutting down.
var errTokenRevoked = errors.New("the token was revoked while the stream ran")

// revokedCause is the reason ctx (from untilRevoked) ended, when it ended
// because its token was revoked, or nil.
func revokedCause(ctx context.Context) error {
	if cause := context.Cause(ctx); errors.Is(cause, errTokenRevoked) {
		return cause
	}
	return nil
}

// holdStream admits one more open stream for the token r was authorized
// with — at most the limits table's streams_per_token, so no token can tie
// up the hub with streams (ErrTooManyStreams) — and returns its context
// (see untilRevoked). Call release when the stream ends.
func (h *Hub) holdStream(r *http.Request) (ctx context.Context, release func(), err error) {
	tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	key := hashToken(strings.TrimSpace(tok))
	limit := hubapi.LimitOf("streams_per_token").Max
	h.openMu.Lock()
	if h.open[key] >= limit {
		h.openMu.Unlock()
		return nil, nil, hubapi.Errorf(hubapi.ErrTooManyStreams, "this token has %d streams open, the limit: close one first", limit)
	}
	h.open[key]++
	h.openMu.Unlock()
	ctx, cancel := h.untilRevoked(r)
	return ctx, func() {
		cancel()
		h.openMu.Lock()
		if h.open[key]--; h.open[key] == 0 {
			delete(h.open, key)
		}
		h.openMu.Unlock()
	}, nil
}

// untilRevoked returns r's context, cancelled as soon as the token r was
// authorized with stops authenticating (an operator token deleted or
// rotated, a persona generation retired or its token reissued), or the
// persona instance it came from is fenced out by a newer one. A request
// is checked once at its start; a stream lives on, so it is checked again
// every revocationCheck for as long as it runs. Call cancel when the stream
// ends.
func (h *Hub) untilRevoked(r *http.Request) (context.Context, context.CancelFunc) {
	ctx, cancelCause := context.WithCancelCause(r.Context())
	cancel := func() { cancelCause(nil) }
	go func() {
		t := time.NewTicker(revocationCheck)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-h.streamsDone:
				return // shutting down: streams end by the drain, not as revoked
			case <-t.C:
				if h.stopping() {
					return
				}
				if _, err := h.authorize(r, either); err != nil {
					h.log.Info("stream ended: its caller may no longer call (a revoked token, a fenced-out instance)", "path", r.URL.Path, "reason", err.Error())
					cancelCause(errors.Join(errTokenRevoked, err))
					return
				}
			}
		}
	}()
	return ctx, cancel
}

// stopping reports whether the hub has begun to shut down.
func (h *Hub) stopping() bool {
	select {
	case <-h.streamsDone:
		return true
	default:
		return false
	}
}
