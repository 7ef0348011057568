package hub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/coord/switchboard"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
	"github.com/virgo-hub/virgo-tui/internal/tools"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
)

// messageTool carries out one /v1/messages request as the persona tool
// call it is (usecase.CallTool, as POST /v1/tools/{tool} would): one
// decision path and one audit for a tool, whichever door it came in by.
// The call's result is the answer; a denied call is refused naming its
// boundary, one waiting on a confirmation names it for the retry through
// POST /v1/tools/{tool}.
func (h *Hub) messageTool(r *http.Request, id hubapi.Identity, key usecase.Key, tool string, args any) (json.RawMessage, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	call, err := h.toolCall(r, id, key, usecase.ToolRequest{Tool: tool, Args: raw})
	if err != nil {
		return nil, err
	}
	switch call.Status {
	case tools.ToolDone:
		return call.Result, nil
	case tools.ToolConfirm:
		return nil, hubapi.Errorf(hubapi.ErrConfirmationRequired, "%s on %s waits on confirmation %s (%s): once it is approved, call POST /v1/tools/%s with correlation_id %s",
			tool, call.Operation.Target, call.ConfirmationID, call.Decision, tool, call.CorrelationID)
	default:
		return nil, hubapi.Errorf(hubapi.ErrForbidden, "%s on %s: %s", tool, call.Operation.Target, call.Decision)
	}
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
// persona, the tool call (decided under its stamp, admitted on both ends,
// audited) answered with the message.
func sendMessage(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	var req hubapi.SendMessageRequest
	if err := decodeBody(w, r, &req, false); err != nil {
		return err
	}
	key, err := idempotencyKey(r, id, req)
	if err != nil {
		return err
	}
	m, err := h.messageTool(r, id, key, "send_broker_message", req)
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
// caller's seat's inbox (the list_coordination_messages tool call); an
// operator reads any seat's with seat=ADDRESS.
func listMessages(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	after, limit, err := pageQuery(r)
	if err != nil {
		return err
	}
	if id.IsHuman() {
		seat := r.URL.Query().Get("seat")
		if seat == "" {
			return hubapi.Errorf(hubapi.ErrPersonaRequired, "an operator names the inbox: seat=ADDRESS")
		}
		page, err := h.cases.SeatInbox(r.Context(), seat, after, limit)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, page)
		return nil
	}
	page, err := h.messageTool(r, id, usecase.Key{}, "list_coordination_messages", pageArgs{After: after, Limit: limit})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

// pageArgs are a list tool's page arguments (absent when zero).
type pageArgs struct {
	After string `json:"after,omitempty"`
	Limit int    `json:"limit,omitempty"`
}

// ackMessage is POST /v1/messages/{id}/ack: ack_coordination_message by the
// token's persona (the tool call), fenced.
func ackMessage(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	ack, err := h.messageTool(r, id, usecase.Key{}, "ack_coordination_message", map[string]string{"message": r.PathValue("id")})
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
		if _, last, err = coord.ParseID(after); err != nil {
			return hubapi.Errorf(hubapi.ErrBadQuery, "after: %v", err)
		}
		if token, err = switchboard.TokenAfter(p.Address, after); err != nil {
			return err
		}
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
	// The first page is the list_coordination_messages tool call: the
	// stream is decided as the list is; the pages after it are its reads.
	raw, err := h.messageTool(r, id, usecase.Key{}, "list_coordination_messages", pageArgs{After: token, Limit: paging.MaxLimit})
	if err != nil {
		return err
	}
	var first coord.Page
	if err := strictjson.DecodeOpen(raw, &first); err != nil {
		return fmt.Errorf("the stream's first page: %w", err)
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
			_, seq, err := coord.ParseID(m.ID)
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
