package hub

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
)

// instance is the persona generation of a persona token with the fence its
// request presented (header Virgo-Fence).
func (h *Hub) instance(ctx context.Context, r *http.Request, id hubapi.Identity) (usecase.Instance, error) {
	f, err := hubapi.ParseFence(r.Header.Get(hubapi.FenceHeader))
	if err != nil {
		return usecase.Instance{}, err
	}
	p, err := h.reg.Get(ctx, id.PersonaID)
	return usecase.Instance{Persona: p, Fence: f}, err
}

// allowTool decides a persona's own call of tool on target under its
// stamp, as POST /v1/authorize would: only an allow verdict goes on; any
// other is refused naming its boundary (a confirm verdict is asked for
// with POST /v1/confirmations).
func (h *Hub) allowTool(ctx context.Context, id hubapi.Identity, tool, target string, shape stamp.Shape) error {
	caller, err := id.Caller()
	if err != nil {
		return err
	}
	a, err := h.cases.Authorize(ctx, caller, usecase.OperationRequest{Tool: tool, Target: target, Shape: string(shape)})
	if err != nil {
		return err
	}
	if d := a.Decision; d.Verdict != confirm.Allow {
		return hubapi.Errorf(hubapi.ErrForbidden, "%s on %s: %s", tool, target, d)
	}
	return nil
}

// claimFence is POST /v1/fence: the calling runtime instance's new fence.
// Every older instance of its generation is fenced out from now on.
func claimFence(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	p, err := h.reg.Get(r.Context(), id.PersonaID)
	if err != nil {
		return err
	}
	f, err := h.cases.ClaimFence(r.Context(), p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, hubapi.FenceClaim{Fence: f})
	return nil
}

// sendMessage is POST /v1/messages: send_broker_message from the token's
// persona, decided under its stamp, admitted on both ends.
func sendMessage(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	var req hubapi.SendMessageRequest
	if err := decodeBody(w, r, &req, false); err != nil {
		return err
	}
	ctx := r.Context()
	if err := h.allowTool(ctx, id, "send_broker_message", "address:"+req.To, stamp.ShapeMessageSend); err != nil {
		return err
	}
	in, err := h.instance(ctx, r, id)
	if err != nil {
		return err
	}
	key, err := idempotencyKey(r, id, req)
	if err != nil {
		return err
	}
	m, err := h.cases.SendMessage(ctx, key, in, coord.Draft{To: req.To, Subject: req.Subject, Body: req.Body, ReplyTo: req.ReplyTo})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, m)
	return nil
}

// pageQuery reads ?after=TOKEN&limit=N (paging checks both).
func pageQuery(r *http.Request) (string, int, error) {
	q := r.URL.Query()
	limit := 0
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return "", 0, hubapi.Errorf(hubapi.ErrBadQuery, "limit=%q: want a number of items", s)
		}
		limit = n
	}
	return q.Get("after"), limit, nil
}

// listMessages is GET /v1/messages?after=TOKEN&limit=N: a page of the
// caller's seat's inbox (list_coordination_messages); an operator names
// the seat with seat=ADDRESS.
func listMessages(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	after, limit, err := pageQuery(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	var page coord.Page
	if id.IsHuman() {
		seat := r.URL.Query().Get("seat")
		if seat == "" {
			return hubapi.Errorf(hubapi.ErrPersonaRequired, "an operator names the inbox: seat=ADDRESS")
		}
		page, err = h.cases.SeatInbox(ctx, seat, after, limit)
	} else {
		var p registry.Persona
		if p, err = h.reg.Get(ctx, id.PersonaID); err != nil {
			return err
		}
		if err := h.allowTool(ctx, id, "list_coordination_messages", "address:"+p.Address, stamp.ShapeReadMeta); err != nil {
			return err
		}
		page, err = h.cases.Inbox(ctx, p, after, limit)
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

// ackMessage is POST /v1/messages/{id}/ack: ack_coordination_message by the
// token's persona, fenced.
func ackMessage(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	ctx := r.Context()
	in, err := h.instance(ctx, r, id)
	if err != nil {
		return err
	}
	if err := h.allowTool(ctx, id, "ack_coordination_message", "address:"+in.Persona.Address, stamp.ShapeRecordWrite); err != nil {
		return err
	}
	ack, err := h.cases.AckMessage(ctx, in, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ack)
	return nil
}

// messageStream is GET /v1/messages/stream?after=ID: the messages waiting
// in the token's persona's seat after message ID (all of them without
// after), then each new one as it is admitted, as NDJSON lines — at least
// once: a reconnect with after= the last one read misses nothing. A
// stream that falls far behind is ended; the runtime resumes with after=.
func messageStream(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	after := r.URL.Query().Get("after")
	p, err := h.reg.Get(r.Context(), id.PersonaID)
	if err != nil {
		return err
	}
	var last uint64
	token := ""
	if after != "" {
		if last, err = coord.ParseID(after); err != nil {
			return hubapi.Errorf(hubapi.ErrBadQuery, "after: %v", err)
		}
		if token, err = coord.TokenAfter(p.Address, after); err != nil {
			return err
		}
	}
	if err := h.allowTool(r.Context(), id, "list_coordination_messages", "address:"+p.Address, stamp.ShapeReadMeta); err != nil {
		return err
	}
	ctx, release, err := h.holdStream(r)
	if err != nil {
		return err
	}
	defer release()
	// Subscribed before the inbox is read: a message admitted meanwhile
	// comes from one or the other, and the sequence drops a duplicate.
	live, cancel := h.mail.subscribe(p.Address)
	defer cancel()
	first, err := h.cases.Inbox(ctx, p, token, paging.MaxLimit)
	if err != nil {
		return err
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	var line []byte
	send := func(ms ...coord.Message) bool {
		line = line[:0]
		for _, m := range ms {
			seq, err := coord.ParseID(m.ID)
			if err != nil || seq <= last {
				continue
			}
			b, err := json.Marshal(m)
			if err != nil {
				continue
			}
			line = append(append(line, b...), '\n')
			last = seq
		}
		_ = rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		if _, err := w.Write(line); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	for page := first; ; {
		if !send(page.Items...) {
			return nil
		}
		if page.Next == "" {
			break
		}
		if page, err = h.cases.Inbox(ctx, p, page.Next, paging.MaxLimit); err != nil {
			return nil // the answer has begun: the runtime reconnects
		}
	}
	ka := time.NewTicker(streamKeepAlive)
	defer ka.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-h.streamsDone:
			return nil
		case m, ok := <-live:
			if !ok || !send(m) {
				return nil
			}
		case <-ka.C:
			_ = rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
			if _, err := w.Write([]byte("\n")); err != nil || rc.Flush() != nil {
				return nil
			}
		}
	}
}
