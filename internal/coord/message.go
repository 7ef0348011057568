package coord

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/paging/pager"
	"github.com/virgo-hub/virgo-tui/internal/quota"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/termtext"
)

// Limits of a message and an inbox: a persona cannot grow another's inbox,
// the database or an operator's screen without end.
const (
	// MaxSubject bounds a subject, in bytes (one line).
	MaxSubject = 256
	// MaxBody bounds a body, in bytes (lines allowed).
	MaxBody = 16 << 10
	// MaxInbox bounds the messages one seat has not acked; a send to a
	// full inbox is refused with ErrInboxFull until the holder acks.
	MaxInbox = 100_000
)

// Sender is who sent a message, as the registry records it: the spec's
// delivery envelope ("registry-derived sender project, agent, peer id, and
// instance/fence provenance"), attribution, not authority. It never
// carries the fence itself (fence material is never exported): the
// instance is named by when it claimed its fence.
type Sender struct {
	// Address is the sender's seat.
	Address string `json:"address"`
	// Project is the seat's project ("" for a scope-wide or root seat).
	Project string `json:"project,omitempty"`
	// Name is the sender generation's for-life name (the agent).
	Name string `json:"name"`
	// ID is the sender generation's id (the peer id).
	ID string `json:"id"`
	// Generation is the sender's generation of its seat.
	Generation int `json:"generation"`
	// InstanceSince is when the sending runtime instance claimed its
	// fence (the instance provenance); absent when the sender presented
	// no fence (a command, or a generation no runtime ever fenced).
	InstanceSince *time.Time `json:"instance_since,omitempty"`
}

// Human reports whether the sender is the seat's human (an answer from
// the human channel: "human:<name>"), not a persona.
func (s Sender) Human() bool { return strings.HasPrefix(s.Address, confirm.HumanPrefix) }

// About names the record a message tells of: work that arrived for the
// recipient (a task assigned or reported, a decision raised or resolved,
// the human's answer to an item), so a runtime acts on the record by id.
type About struct {
	// Kind is the record's kind: task, decision or item (a human-channel
	// item).
	Kind string `json:"kind"`
	// ID is the record's id, as its tools take it.
	ID string `json:"id"`
	// Event is what happened to it: assigned, reported, reassigned,
	// cancelled, raised, resolved, reaction, reply, answer.
	Event string `json:"event"`
}

// Message is one coordination message in a seat's inbox.
type Message struct {
	// ID names the message in the installation: "m-", its sequence in
	// its seat's inbox, "." and the seat's address with "." for "/"
	// (m-17.work.core.lead), so reply_to names one message, not the
	// seventeenth of every inbox.
	ID string `json:"id"`
	// To is the recipient seat's address.
	To   string `json:"to"`
	From Sender `json:"from"`
	// Subject is one line; Body may hold several. Both are checked clean
	// when sent and are shown through termtext all the same.
	Subject string `json:"subject,omitempty"`
	Body    string `json:"body"`
	// ReplyTo is the id of the message this one answers (in the
	// sender's inbox), if any.
	ReplyTo string `json:"reply_to,omitempty"`
	// Item is set on a message that carries the bound human's reply in
	// the human channel: the channel item's id, which the persona acks,
	// answers or reacts to with the human-surface tools. Its From is then
	// the human ("human:<name>" as the address).
	Item string `json:"item,omitempty"`
	// About is set on a message the hub delivers with a record's change
	// (in the record's transaction): the record it tells of.
	About  *About    `json:"about,omitempty"`
	SentAt time.Time `json:"sent_at"`
}

// Draft is what a sender writes: the message before admission gives it an
// id, a sender and a time.
type Draft struct {
	To      string `json:"to"`
	Subject string `json:"subject,omitempty"`
	Body    string `json:"body"`
	ReplyTo string `json:"reply_to,omitempty"`
}

// Ack is the answer of an acknowledgement.
type Ack struct {
	ID string `json:"id"`
	// Repeat is true when the message had already been acked: acks are
	// idempotent, and a repeated one changes nothing.
	Repeat bool `json:"repeat"`
}

// Page is one page of a seat's inbox, oldest first (paging's one form).
type Page = paging.Page[Message]

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

// Size is what a message counts against its seat's inbox_bytes quota: its
// subject and body, the bytes its sender chose.
func (m Message) Size() int64 { return int64(len(m.Subject) + len(m.Body)) }

func keySeat(seat string) string { return PrefixSeat + seat }

// inboxPrefix is the key prefix of one seat's inbox; "#" appears in no
// address, so no seat's inbox prefix is a prefix of another's.
func inboxPrefix(seat string) string { return PrefixInbox + seat + "/#" }

func keyInbox(seat string, seq uint64) string {
	return fmt.Sprintf("%s%020d", inboxPrefix(seat), seq)
}

// messageID names message seq of seat's inbox, unique in the
// installation: an address holds no ".", so the seat reads back from it.
func messageID(seat string, seq uint64) string {
	return "m-" + strconv.FormatUint(seq, 10) + "." + strings.ReplaceAll(seat, "/", ".")
}

// ParseID reads a message id back to its seat and its sequence in the
// seat's inbox: of two messages of one seat, the later admitted has the
// higher.
func ParseID(id string) (seat string, seq uint64, err error) {
	rest, ok := strings.CutPrefix(id, "m-")
	digits, dotted, found := strings.Cut(rest, ".")
	seq, perr := strconv.ParseUint(digits, 10, 64)
	seat = strings.ReplaceAll(dotted, ".", "/")
	if !ok || !found || perr != nil || seq == 0 || seat == "" || messageID(seat, seq) != id {
		return "", 0, fmt.Errorf("%w %s: ids are m-<number>.<seat>, as list shows them", ErrBadMessageID, clip(id))
	}
	return seat, seq, nil
}

// seqIn reads id back to its sequence in seat's inbox; an id of another
// seat's inbox is one this inbox never held.
func seqIn(seat, id string) (uint64, error) {
	of, seq, err := ParseID(id)
	if err != nil {
		return 0, err
	}
	if of != seat {
		return 0, fmt.Errorf("%w: %s is a message of %s's inbox, not of %s's", ErrNoMessage, clip(id), of, seat)
	}
	return seq, nil
}

// checkMessage refuses what no inbox should hold.
func checkMessage(subject, body string) error {
	switch {
	case strings.TrimSpace(body) == "":
		return fmt.Errorf("%w: the body is empty", ErrBadMessage)
	case len(subject) > MaxSubject:
		return fmt.Errorf("%w: the subject is %d bytes, over the %d-byte limit", ErrBadMessage, len(subject), MaxSubject)
	case len(body) > MaxBody:
		return fmt.Errorf("%w: the body is %d bytes, over the %d-byte limit", ErrBadMessage, len(body), MaxBody)
	}
	if err := termtext.Check(subject, false); err != nil {
		return fmt.Errorf("%w: subject: %w", ErrBadMessage, err)
	}
	if err := termtext.Check(body, true); err != nil {
		return fmt.Errorf("%w: body: %w", ErrBadMessage, err)
	}
	return nil
}

// PlanSend plans admitting m to the inbox of the seat m.To: it is given the
// seat's next sequence and id and the time it is sent. The caller joins
// the admission conditions of both ends (the sender's and the recipient's
// seat) and commits; a conflict means another message or ack went first:
// plan again.
func (b *Book) PlanSend(ctx context.Context, m Message) (Message, store.Plan, error) {
	if err := checkMessage(m.Subject, m.Body); err != nil {
		return Message{}, store.Plan{}, err
	}
	if m.ReplyTo != "" {
		if _, _, err := ParseID(m.ReplyTo); err != nil {
			return Message{}, store.Plan{}, fmt.Errorf("%w: reply_to: %w", ErrBadMessage, err)
		}
	}
	var book seatBook
	rev, err := store.GetJSON(ctx, b.st, keySeat(m.To), &book)
	if err != nil {
		return Message{}, store.Plan{}, err
	}
	if book.Pending >= MaxInbox {
		return Message{}, store.Plan{}, fmt.Errorf("%w: %s has %d messages it has not acked (the limit)", ErrInboxFull, m.To, book.Pending)
	}
	// The human's answers are admitted over the quota (and counted): a
	// persona flooding a seat must not silence the seat's human.
	if m.Item == "" && !m.From.Human() {
		if err := quota.Check(quota.InboxBytes, m.To, book.Bytes, m.Size(), b.inboxBytes, "the seat's holder acks messages to free it"); err != nil {
			return Message{}, store.Plan{}, err
		}
	}
	book.Last++
	book.Pending++
	book.Bytes += m.Size()
	m.ID, m.SentAt = messageID(m.To, book.Last), b.now().UTC()
	seatOp, err := store.PutJSON(keySeat(m.To), book)
	if err != nil {
		return Message{}, store.Plan{}, err
	}
	msgOp, err := store.PutJSON(keyInbox(m.To, book.Last), m)
	if err != nil {
		return Message{}, store.Plan{}, err
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
func (b *Book) PlanAck(ctx context.Context, seat, id string) (Ack, store.Plan, error) {
	seq, err := seqIn(seat, id)
	if err != nil {
		return Ack{}, store.Plan{}, err
	}
	var book seatBook
	bookRev, err := store.GetJSON(ctx, b.st, keySeat(seat), &book)
	if err != nil {
		return Ack{}, store.Plan{}, err
	}
	if seq > book.Last {
		return Ack{}, store.Plan{}, fmt.Errorf("%w: %s's inbox never held %s", ErrNoMessage, seat, id)
	}
	var m Message
	msgRev, err := store.GetJSON(ctx, b.st, keyInbox(seat, seq), &m)
	if err != nil {
		return Ack{}, store.Plan{}, err
	}
	if msgRev == 0 {
		return Ack{ID: id, Repeat: true}, store.Plan{}, nil
	}
	book.Pending--
	book.Bytes = max(book.Bytes-m.Size(), 0)
	seatOp, err := store.PutJSON(keySeat(seat), book)
	if err != nil {
		return Ack{}, store.Plan{}, err
	}
	return Ack{ID: id}, store.Plan{
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
func (b *Book) Inbox(ctx context.Context, seat, token string, limit int) (Page, error) {
	page, err := pager.Read(ctx, b.st, inboxPrefix(seat), token, limit, func(kv store.KV) (Message, bool, error) {
		var m Message
		if err := json.Unmarshal(kv.Value, &m); err != nil {
			return Message{}, false, fmt.Errorf("read %s: %w: %v", kv.Key, store.ErrCorrupt, err)
		}
		return m, true, nil
	})
	if err != nil {
		return Page{}, fmt.Errorf("list %s's inbox: %w", seat, err)
	}
	return page, nil
}

// TokenAfter is the paging token of seat's inbox that continues after
// message id, so that a stream resumed after the last id it delivered
// reads on from there.
func TokenAfter(seat, id string) (string, error) {
	seq, err := seqIn(seat, id)
	if err != nil {
		return "", err
	}
	return paging.Token(inboxPrefix(seat), keyInbox(seat, seq)), nil
}
