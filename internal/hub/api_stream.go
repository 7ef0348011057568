package hub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/events"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// streamKeepAlive is how often an idle stream sends a blank line (NDJSON)
// or a comment (SSE), so a dead peer is noticed on both sides.
const streamKeepAlive = 15 * time.Second

// streamWriteTimeout drops a subscriber that stops reading.
const streamWriteTimeout = 30 * time.Second

// streamChanges is GET /v1/stream?after=N[&epoch=E]: every change after
// sequence N, then live, as NDJSON, or as server-sent events when the
// client accepts text/event-stream. A sequence that is no longer kept, or
// an epoch of an earlier hub run, is 410 with code "resync".
func streamChanges(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	after, err := parseAfter(r)
	if err != nil {
		return err
	}
	if e := r.URL.Query().Get("epoch"); e != "" && e != h.stream.Epoch() {
		return h.resyncError(fmt.Sprintf("sequence %d belongs to an earlier hub run (epoch %s)", after, e))
	}
	if _, _, err := h.stream.Read(after, 0, nil); err != nil {
		return h.resyncError(err.Error())
	}
	ctx, release, err := h.holdStream(r)
	if err != nil {
		return err
	}
	defer release()
	sse := strings.Contains(r.Header.Get("Accept"), "text/event-stream")
	rc := http.NewResponseController(w)
	// The stream outlives any read deadline meant for request bodies.
	_ = rc.SetReadDeadline(time.Time{})
	if sse {
		w.Header().Set("Content-Type", "text/event-stream")
	} else {
		w.Header().Set("Content-Type", "application/x-ndjson")
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set(hubapi.EpochHeader, h.stream.Epoch())
	w.WriteHeader(http.StatusOK)
	if err := rc.Flush(); err != nil {
		return nil
	}

	var line []byte
	write := func(cs []hubapi.Change) error {
		line = line[:0]
		for _, c := range cs {
			if !events.VisibleTo(c.Kind, c.ID, id.Principal) {
				// Another human's channel: the sequence number stays
				// (a subscriber checks there is no gap), what it holds
				// does not.
				c = hubapi.Change{Seq: c.Seq, Epoch: c.Epoch, Kind: c.Kind, Time: c.Time}
			}
			b, err := json.Marshal(c)
			if err != nil {
				return err
			}
			if sse {
				line = fmt.Appendf(line, "id: %d\nevent: %s\ndata: ", c.Seq, c.Kind)
				line = append(line, b...)
				line = append(line, '\n', '\n')
			} else {
				line = append(line, b...)
				line = append(line, '\n')
			}
		}
		_ = rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		if _, err := w.Write(line); err != nil {
			return err
		}
		return rc.Flush()
	}

	ka := time.NewTicker(streamKeepAlive)
	defer ka.Stop()

	var buf []hubapi.Change
	for {
		batch, wake, err := h.stream.Read(after, 512, buf[:0])
		if err != nil {
			// Fell behind the ring: say so in-band and end; the client resyncs.
			_ = write([]hubapi.Change{{Kind: hubapi.KindResync, Seq: h.stream.Head(), Epoch: h.stream.Epoch(), Time: time.Now().UTC()}})
			return nil
		}
		if len(batch) > 0 {
			if err := write(batch); err != nil {
				return nil
			}
			after, buf = batch[len(batch)-1].Seq, batch
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-h.streamsDone:
			return nil
		case <-wake:
		case <-ka.C:
			ping := "\n"
			if sse {
				ping = ": keep-alive\n\n"
			}
			_ = rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
			if _, err := w.Write([]byte(ping)); err != nil || rc.Flush() != nil {
				return nil
			}
		}
	}
}

func parseAfter(r *http.Request) (uint64, error) {
	s := r.URL.Query().Get("after")
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, hubapi.Errorf(hubapi.ErrBadQuery, "after=%q: want a sequence number (0 or more)", s)
	}
	return n, nil
}

func (h *Hub) resyncError(why string) *hubapi.APIError {
	ae := hubapi.Errorf(hubapi.ErrResync, "resync: %s; fetch GET /v1/snapshot and resume after its seq", why)
	ae.Head, ae.Epoch = h.stream.Head(), h.stream.Epoch()
	return ae
}
