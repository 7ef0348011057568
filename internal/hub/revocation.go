package hub

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// revocationCheck is how often, while any stream is open, the hub looks
// at what no store watch reports: this home's operator token files (one
// deleted or rewritten by hand) and the stamp files of the generations
// holding open streams (checkFiles). Well inside the one second in which a
// revoked token or a generation no longer standing must end its streams.
const revocationCheck = 250 * time.Millisecond

// wakeups wakes the open streams of one caller at once: wait(key)
// returns the channel that the next fire(key) closes. A key is a persona
// generation's id, or humanStreams for every operator's and SSH session's
// streams: a change concerning one generation (its fence claimed, its
// token reissued, its record retired) wakes its streams only, so a burst
// of runtimes connecting does not wake every stream of the hub. A key
// holds a channel only while a stream waits on it: the last waiter to
// leave removes it, so generations that once held streams leave nothing.
type wakeups struct {
	mu  sync.Mutex
	chs map[string]*wakeup
}

// wakeup is one key's channel and how many streams wait on it.
type wakeup struct {
	ch      chan struct{}
	waiters int
}

// humanStreams is the wakeups key of the streams of humans: operators
// and SSH console sessions, whose standing changes with the enrolment
// records.
const humanStreams = ""

// wait returns a channel closed by the next fire of key, and leave, to be
// called once the caller no longer waits on it.
func (w *wakeups) wait(key string) (changed <-chan struct{}, leave func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	wu, ok := w.chs[key]
	if !ok {
		if w.chs == nil {
			w.chs = make(map[string]*wakeup)
		}
		wu = &wakeup{ch: make(chan struct{})}
		w.chs[key] = wu
	}
	wu.waiters++
	return wu.ch, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		// A fire since has removed wu already; a wait after it took a
		// new one, which is not this caller's to remove.
		if wu.waiters--; wu.waiters == 0 && w.chs[key] == wu {
			delete(w.chs, key)
		}
	}
}

// fire wakes the streams waiting on key.
func (w *wakeups) fire(key string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if wu, ok := w.chs[key]; ok {
		close(wu.ch)
		delete(w.chs, key)
	}
}

// wakeKey is the wakeups key of a caller.
func wakeKey(id hubapi.Identity) string {
	if id.Kind == hubapi.PrincipalPersona {
		return id.PersonaID
	}
	return humanStreams
}

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
	ctx, cancel := h.untilRevoked(r, key)
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
// rotated, a persona generation retired or its token reissued), the
// persona instance it came from is fenced out by a newer one, or its
// generation stops standing. A stream is not polled: it authorizes its
// caller (whose token hashes to tok) again only when h.woken wakes it —
// once per committed change that can revoke (watchStore), a direct
// revocation, or a file the revocation check found changed — and once as
// it starts, so that a change applied since the request's own check is not
// missed. Call cancel when the stream ends.
func (h *Hub) untilRevoked(r *http.Request, tok tokenHash) (context.Context, context.CancelFunc) {
	ctx, cancelCause := context.WithCancelCause(r.Context())
	cancel := func() { cancelCause(nil) }
	go func() {
		// The changes to wait for follow from the token; one the book
		// does not hold is refused by the first check.
		key := humanStreams
		if id, ok := h.tokens.lookup(tok); ok {
			key = wakeKey(id)
		}
		var proved string // the generation whose stamp file checkFiles proves
		defer func() {
			if proved != "" {
				h.streamEnded(proved)
			}
		}()
		for {
			// Taken before the check: a change applied during it wakes
			// the stream again.
			changed, leave := h.woken.wait(key)
			h.streamChecks.Add(1)
			id, err := h.authorize(r, either)
			if err != nil {
				leave()
				if ctx.Err() != nil {
					return // the stream ended first: its check could not finish
				}
				h.log.Info("stream ended: its caller may no longer call (a revoked token, a fenced-out instance)", "path", r.URL.Path, "reason", err.Error())
				cancelCause(errors.Join(errTokenRevoked, err))
				return
			}
			if k := wakeKey(id); k != key {
				leave()
				key = k // the book took the token since: wait where its changes fire
				continue
			}
			if proved == "" && id.Kind == hubapi.PrincipalPersona {
				proved = id.PersonaID
				h.streamStarted(proved)
			}
			select {
			case <-ctx.Done():
				leave()
				return
			case <-h.streamsDone:
				leave()
				return // shutting down: streams end by the drain, not as revoked
			case <-changed:
				leave()
				if h.stopping() {
					return
				}
			}
		}
	}()
	return ctx, cancel
}

// streamStarted counts an open stream of generation personaID, whose
// stamp file checkFiles then proves.
func (h *Hub) streamStarted(personaID string) {
	h.openMu.Lock()
	h.streaming[personaID]++
	h.openMu.Unlock()
}

// streamEnded counts the end of a stream of personaID (streamStarted).
func (h *Hub) streamEnded(personaID string) {
	h.openMu.Lock()
	if h.streaming[personaID]--; h.streaming[personaID] <= 0 {
		delete(h.streaming, personaID)
	}
	h.openMu.Unlock()
}

// checkRevocations runs checkFiles every revocationCheck until ctx ends.
func (h *Hub) checkRevocations(ctx context.Context) {
	t := time.NewTicker(revocationCheck)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			h.checkFiles()
		}
	}
}

// checkFiles looks, while any stream is open, at the revocations no store
// watch reports: it rescans this home's operator token files (a file
// deleted or rewritten by hand is recorded as the operator's removal or
// rotation, which the watch then applies) and proves the stamp file of
// each generation holding a stream (one that fails is not standing,
// stampFault). Either wakes the streams concerned (h.woken). It costs a
// stat of the directory and of each file while nothing changed.
func (h *Hub) checkFiles() {
	h.openMu.Lock()
	if len(h.open) == 0 {
		h.openMu.Unlock()
		return
	}
	ids := slices.Collect(maps.Keys(h.streaming))
	h.openMu.Unlock()
	// A directory that cannot be read is every request's answer (and the
	// streams' as they are woken); it is not logged at every check.
	_ = h.tokens.refreshOperators()
	for _, id := range ids {
		// A failure is recorded (stampFault), and answered to the
		// streams as they are woken.
		_ = h.checkStamp(context.Background(), id)
	}
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
