package hub

import (
	"context"
	"net/http"
	"time"
)

// revocationCheck is how often an open stream asks whether its token still
// holds: well inside the one second in which a deleted operator token, a
// retired persona or a rotated token must end it.
const revocationCheck = 250 * time.Millisecond

// untilRevoked returns r's context, cancelled as soon as the token r was
// authorized with stops authenticating (an operator token deleted or
// rotated, a persona generation retired or its token reissued). A request
// is checked once at its start; a stream lives on, so it is checked again
// every revocationCheck for as long as it runs. Call cancel when the stream
// ends.
func (h *Hub) untilRevoked(r *http.Request) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(r.Context())
	go func() {
		t := time.NewTicker(revocationCheck)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if _, err := h.authorize(r, either); err != nil {
					h.log.Info("stream ended: its token was revoked", "path", r.URL.Path, "reason", err.Error())
					cancel()
					return
				}
			}
		}
	}()
	return ctx, cancel
}
