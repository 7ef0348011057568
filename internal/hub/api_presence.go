package hub

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// beat is POST /v1/presence/beat: a persona runtime's heartbeat, with an
// optional activity and summary. The persona is the token's, never the body's.
func beat(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	var rep hubapi.PresenceReport
	if err := decodeBody(w, r, &rep, true); err != nil {
		return err
	}
	return h.report(w, id, rep)
}

// setPresence is POST /v1/presence/set: like a beat, but at least one of
// activity, summary and session must be given.
func setPresence(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	var rep hubapi.PresenceReport
	if err := decodeBody(w, r, &rep, false); err != nil {
		return err
	}
	if rep.Activity == nil && rep.Summary == nil && rep.Session == nil {
		return hubapi.Errorf(hubapi.ErrNothingToSet, "set needs \"activity\", \"summary\" or \"session\"; to only beat, POST /v1/presence/beat")
	}
	return h.report(w, id, rep)
}

func (h *Hub) report(w http.ResponseWriter, id hubapi.Identity, rep hubapi.PresenceReport) error {
	if err := h.applyReport(id, rep); err != nil {
		return err
	}
	p, _ := h.presence.Get(id.PersonaID)
	writeJSON(w, http.StatusOK, hubapi.BeatAck{State: p.State, Beats: p.Beats})
	return nil
}

// applyReport records one beat, with its activity, summary and session
// state if given, as one all-or-nothing report.
func (h *Hub) applyReport(id hubapi.Identity, rep hubapi.PresenceReport) error {
	return h.presence.Apply(id.PersonaID, rep)
}

// listPresence is GET /v1/presence.
func listPresence(h *Hub, w http.ResponseWriter, r *http.Request, _ hubapi.Identity) error {
	writeJSON(w, http.StatusOK, h.presence.List())
	return nil
}

// maxReportLine bounds one line of a beat stream: room for both texts at
// their limits, written as JSON.
var maxReportLine = 2*(hubapi.LimitOf("activity").Max+hubapi.LimitOf("summary").Max) + 256 // JSON escapes and the field names

// beatStreamDrain is how long a beat stream may go on reading once the hub
// shuts down: long enough to apply the beats already on the wire, short
// enough that an open stream does not hold the shutdown up.
const beatStreamDrain = 200 * time.Millisecond

// beatStream is POST /v1/presence/stream: a persona runtime's keep-alive
// path. The body is a stream of lines, each an empty line (a heartbeat) or a
// PresenceReport object, applied as it arrives; the answer comes when the
// runtime ends the body, or when the hub shuts down (then after at most
// beatStreamDrain, counting the reports applied). One request carries any
// number of heartbeats, so a busy runtime pays for HTTP once, not per beat.
// The connection may stay silent up to the offline interval between lines.
func beatStream(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	fence, err := hubapi.ParseFence(r.Header.Get(hubapi.FenceHeader))
	if err != nil {
		return err
	}
	valid, release, err := h.holdStream(r)
	if err != nil {
		return err
	}
	defer release()
	rc := http.NewResponseController(w)
	// Full duplex: a refusal mid-stream (fenced out, a revoked token)
	// reaches the runtime at once. Without it the server would first drain
	// the rest of the body, which a live runtime never ends.
	_ = rc.EnableFullDuplex()
	dl := watchShutdown(h, valid, rc)
	defer dl.stop()
	left := h.presence.Connect(id.PersonaID)
	clean := false
	defer func() { left(clean) }()
	rd := bufio.NewReaderSize(r.Body, 4096)
	var n uint64
	stampChecked := time.Now()
	for {
		dl.extend(h.cfg.Intervals.Offline)
		line, err := rd.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) || len(line) > maxReportLine {
			return hubapi.Errorf(hubapi.ErrTooLarge, "beat stream line %d is over %d bytes", n+1, maxReportLine)
		}
		if err != nil && !errors.Is(err, io.EOF) {
			if revoked := revokedCause(valid); revoked != nil {
				// Nothing more is taken from a revoked token's stream.
				return fmt.Errorf("%s: %w", id.Principal, revoked)
			}
			if dl.ending() {
				// The hub is shutting down: answer with what was applied; a
				// line cut short by the deadline is dropped.
				break
			}
			return hubapi.Errorf(hubapi.ErrStreamBroken, "beat stream ended after %d reports: %v", n, err)
		}
		if now := time.Now(); len(line) > 0 && now.Sub(stampChecked) >= stampRecheck {
			// A long-lived stream is held to its stamp too, at most once
			// per stampRecheck (the request itself was checked on entry).
			if serr := h.checkStamp(r.Context(), id.PersonaID); serr != nil {
				return fmt.Errorf("%s: %w", id.Principal, serr)
			}
			stampChecked = now
		}
		if len(line) > 0 {
			// A newer instance may claim the fence while this stream runs:
			// from then on its beats are refused.
			if ferr := h.cases.CheckFence(r.Context(), id.PersonaID, fence); ferr != nil {
				return fmt.Errorf("%s: beat stream line %d: %w", id.Principal, n+1, ferr)
			}
		}
		if len(bytes.TrimSpace(line)) > 0 {
			var rep hubapi.PresenceReport
			if jerr := hubapi.Decode(line, &rep); jerr != nil {
				return hubapi.Errorf(jerr, "beat stream line %d: %v", n+1, jerr)
			}
			if rerr := h.applyReport(id, rep); rerr != nil {
				return rerr
			}
			n++
		} else if len(line) > 0 {
			if berr := h.presence.Beat(id.PersonaID); berr != nil {
				return berr
			}
			n++
		}
		if err != nil { // io.EOF: the runtime ended the body
			clean = true
			break
		}
	}
	p, _ := h.presence.Get(id.PersonaID)
	writeJSON(w, http.StatusOK, hubapi.BeatStreamResult{Reports: n, State: p.State})
	return nil
}

// streamDeadline is a beat stream's read deadline: pushed forward before
// each line while the hub runs, and pinned to a short drain once the hub
// shuts down (h.streamsDone), so that a read waiting on a silent runtime
// returns at once instead of holding the shutdown for its whole timeout.
type streamDeadline struct {
	rc    *http.ResponseController
	done  chan struct{}
	mu    sync.Mutex
	ended bool
}

// watchShutdown starts watching h.streamsDone and the stream's token (valid
// ends when it is revoked) for one beat stream; stop it when the handler
// returns.
func watchShutdown(h *Hub, valid context.Context, rc *http.ResponseController) *streamDeadline {
	d := &streamDeadline{rc: rc, done: make(chan struct{})}
	go func() {
		select {
		case <-h.streamsDone:
		case <-valid.Done():
		case <-d.done:
			return
		}
		d.mu.Lock()
		d.ended = true
		_ = d.rc.SetReadDeadline(time.Now().Add(beatStreamDrain))
		d.mu.Unlock()
	}()
	return d
}

// extend moves the deadline to after from now, unless the hub is shutting
// down (the drain deadline then stands).
func (d *streamDeadline) extend(after time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.ended {
		_ = d.rc.SetReadDeadline(time.Now().Add(after))
	}
}

// ending reports whether the hub is shutting down.
func (d *streamDeadline) ending() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.ended
}

func (d *streamDeadline) stop() { close(d.done) }
