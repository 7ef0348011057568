package switchboard

import (
	"context"
	"fmt"

	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/paging/pager"
	"github.com/virgo-hub/virgo-tui/internal/quota"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
)

// seatBook is a seat's inbox bookkeeping.
type seatBook struct {
	// Last is the sequence of the last message admitted (the first is 1).
	Last uint64 `json:"last"`
	// Pending counts the messages not acked.
	Pending int `json:"pending"`
	// Bytes counts the bytes (Size) of the messages not acked, the
	// inbox_bytes quota's count. A book written before it was counted
	// starts at zero, so an ack never takes it below zero.
	Bytes int64 `json:"bytes,omitempty"`
}

func keySeat(seat string) string { return PrefixSeat + seat }

// inboxPrefix is the key prefix of one seat's inbox; "#" appears in no
// address, so no seat's inbox prefix is a prefix of another's.
func inboxPrefix(seat string) string { return PrefixInbox + seat + "/#" }

func keyInbox(seat string, seq uint64) string {
	return fmt.Sprintf("%s%020d", inboxPrefix(seat), seq)
}

// PlanSend plans admitting m to the inbox of the seat m.To: it is given the
// seat's next sequence and id and the time it is sent. The caller joins
// the admission conditions of both ends (the sender's and the recipient's
// seat) and commits; a conflict means another message or ack went first:
// plan again.
func (b *Book) PlanSend(ctx context.Context, m coord.Message) (coord.Message, store.Plan, error) {
	if err := coord.CheckMessage(m.Subject, m.Body); err != nil {
		return coord.Message{}, store.Plan{}, err
	}
	if m.ReplyTo != "" {
		if _, _, err := coord.ParseID(m.ReplyTo); err != nil {
			return coord.Message{}, store.Plan{}, fmt.Errorf("%w: reply_to: %w", coord.ErrBadMessage, err)
		}
	}
	var book seatBook
	rev, err := store.GetJSON(ctx, b.st, keySeat(m.To), &book)
	if err != nil {
		return coord.Message{}, store.Plan{}, err
	}
	if book.Pending >= coord.MaxInbox {
		return coord.Message{}, store.Plan{}, fmt.Errorf("%w: %s has %d messages it has not acked (the limit)", coord.ErrInboxFull, m.To, book.Pending)
	}
	// The human's answers are admitted over the quota (and counted): a
	// persona flooding a seat must not silence the seat's human.
	if m.Item == "" && !m.From.Human() {
		if err := quota.Check(quota.InboxBytes, m.To, book.Bytes, m.Size(), b.inboxBytes, "the seat's holder acks messages to free it"); err != nil {
			return coord.Message{}, store.Plan{}, err
		}
	}
	book.Last++
	book.Pending++
	book.Bytes += m.Size()
	m.ID, m.SentAt = coord.MessageID(m.To, book.Last), b.now().UTC()
	seatOp, err := store.PutJSON(keySeat(m.To), book)
	if err != nil {
		return coord.Message{}, store.Plan{}, err
	}
	msgOp, err := store.PutJSON(keyInbox(m.To, book.Last), m)
	if err != nil {
		return coord.Message{}, store.Plan{}, err
	}
	return m, store.Plan{
		Conds: []store.Cond{{Key: keySeat(m.To), ModRev: rev}, {Key: msgOp.Key}},
		Ops:   []store.Op{seatOp, msgOp},
	}, nil
}

// PlanAck plans acknowledging message id of seat's inbox: the message
// leaves the inbox. A message acked before (by this generation or an
// earlier one of the seat) is answered Repeat with an empty plan; an id
// the seat never had is ErrNoMessage.
func (b *Book) PlanAck(ctx context.Context, seat, id string) (coord.Ack, store.Plan, error) {
	seq, err := coord.SeqIn(seat, id)
	if err != nil {
		return coord.Ack{}, store.Plan{}, err
	}
	var book seatBook
	bookRev, err := store.GetJSON(ctx, b.st, keySeat(seat), &book)
	if err != nil {
		return coord.Ack{}, store.Plan{}, err
	}
	if seq > book.Last {
		return coord.Ack{}, store.Plan{}, fmt.Errorf("%w: %s's inbox never held %s", coord.ErrNoMessage, seat, id)
	}
	var m coord.Message
	msgRev, err := store.GetJSON(ctx, b.st, keyInbox(seat, seq), &m)
	if err != nil {
		return coord.Ack{}, store.Plan{}, err
	}
	if msgRev == 0 {
		return coord.Ack{ID: id, Repeat: true}, store.Plan{}, nil
	}
	book.Pending--
	book.Bytes = max(book.Bytes-m.Size(), 0)
	seatOp, err := store.PutJSON(keySeat(seat), book)
	if err != nil {
		return coord.Ack{}, store.Plan{}, err
	}
	return coord.Ack{ID: id}, store.Plan{
		Conds: []store.Cond{{Key: keySeat(seat), ModRev: bookRev}, {Key: keyInbox(seat, seq), ModRev: msgRev}},
		Ops:   []store.Op{seatOp, {Key: keyInbox(seat, seq), Delete: true}},
	}, nil
}

// Pending is how many messages wait in seat's inbox.
func (b *Book) Pending(ctx context.Context, seat string) (int, error) {
	var book seatBook
	_, err := store.GetJSON(ctx, b.st, keySeat(seat), &book)
	return book.Pending, err
}

// Inbox returns one page of seat's inbox, oldest first, continuing the
// paging token ("" for the first page; paging's limits and token rules: a
// token only continues this seat's inbox).
func (b *Book) Inbox(ctx context.Context, seat, token string, limit int) (coord.Page, error) {
	page, err := pager.Read(ctx, b.st, inboxPrefix(seat), token, limit, func(kv store.KV) (coord.Message, bool, error) {
		var m coord.Message
		if err := strictjson.DecodeOpen(kv.Value, &m); err != nil {
			return coord.Message{}, false, fmt.Errorf("read %s: %w: %v", kv.Key, store.ErrCorrupt, err)
		}
		return m, true, nil
	})
	if err != nil {
		return coord.Page{}, fmt.Errorf("list %s's inbox: %w", seat, err)
	}
	return page, nil
}

// TokenAfter is the paging token of seat's inbox that continues after
// message id, so that a stream resumed after the last id it delivered
// reads on from there.
func TokenAfter(seat, id string) (string, error) {
	seq, err := coord.SeqIn(seat, id)
	if err != nil {
		return "", err
	}
	return paging.Token(inboxPrefix(seat), keyInbox(seat, seq)), nil
}
