package hub

import (
	"net/http"
	"strconv"

	"github.com/virgo-hub/virgo-tui/internal/channel"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// The human's side of the human channel: an operator token acts on its
// own human's channel only (the token's principal), never another's.

// listInbox is GET /v1/inbox?after=TOKEN&limit=N: a page of the token's
// human's channel, oldest first.
func listInbox(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	human, err := id.ConfirmPrincipal()
	if err != nil {
		return err
	}
	after, limit, err := pageQuery(r)
	if err != nil {
		return err
	}
	page, err := h.cases.HumanInbox(r.Context(), human, after, limit)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

// inboxStatus is GET /v1/inbox/status: unread count, typing indicators
// and the reaction catalogue.
func inboxStatus(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	human, err := id.ConfirmPrincipal()
	if err != nil {
		return err
	}
	unread, typing, err := h.cases.HumanStatus(r.Context(), human)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, hubapi.InboxStatus{Human: human.String(), Unread: unread, Typing: typing, Reactions: channel.ReactionIDs})
	return nil
}

// replyInbox is POST /v1/inbox/{id}/reply: the human's reply to a
// persona's item, delivered to the persona's seat.
func replyInbox(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	var req hubapi.InboxReply
	if err := decodeBody(w, r, &req, false); err != nil {
		return err
	}
	human, err := id.ConfirmPrincipal()
	if err != nil {
		return err
	}
	key, err := idempotencyKey(r, id, req)
	if err != nil {
		return err
	}
	it, err := h.cases.ReplyAsHuman(r.Context(), key, human, r.PathValue("id"), req.Text)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, it)
	return nil
}

// reactInbox is POST /v1/inbox/{id}/react: the human's reaction, with its
// definitive outcome.
func reactInbox(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	var req hubapi.InboxReact
	if err := decodeBody(w, r, &req, false); err != nil {
		return err
	}
	human, err := id.ConfirmPrincipal()
	if err != nil {
		return err
	}
	o, err := h.cases.ReactAsHuman(r.Context(), human, r.PathValue("id"), req.Reaction, req.CorrelationID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, o)
	return nil
}

// ackInbox is POST /v1/inbox/{id}/ack: the human read a persona's item.
func ackInbox(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	human, err := id.ConfirmPrincipal()
	if err != nil {
		return err
	}
	it, err := h.cases.AckFromHuman(r.Context(), human, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, it)
	return nil
}

// answerInbox is POST /v1/inbox/{id}/answer: the human's answer to a
// card, delivered to the persona that sent it.
func answerInbox(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	var req hubapi.InboxAnswer
	if err := decodeBody(w, r, &req, false); err != nil {
		return err
	}
	human, err := id.ConfirmPrincipal()
	if err != nil {
		return err
	}
	it, err := h.cases.AnswerCard(r.Context(), human, r.PathValue("id"), req.Action)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, it)
	return nil
}

// tickInbox is POST /v1/inbox/{id}/tick: a todo card's line done or not.
func tickInbox(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	var req hubapi.InboxTick
	if err := decodeBody(w, r, &req, false); err != nil {
		return err
	}
	human, err := id.ConfirmPrincipal()
	if err != nil {
		return err
	}
	it, err := h.cases.TickTodo(r.Context(), human, r.PathValue("id"), req.Index, req.Done)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, it)
	return nil
}

// inboxFile is GET /v1/inbox/{id}/file: a file item's bytes, with its
// name and sha256 in headers, for the human to save.
func inboxFile(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	human, err := id.ConfirmPrincipal()
	if err != nil {
		return err
	}
	it, data, err := h.cases.HumanFile(r.Context(), human, r.PathValue("id"))
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.Header().Set(hubapi.FileSHA256Header, it.File.SHA256)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(data)
	return nil
}
