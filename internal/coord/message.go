package coord

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/paging"
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

// Size is what a message counts against its seat's inbox_bytes quota: its
// subject and body, the bytes its sender chose.
func (m Message) Size() int64 { return int64(len(m.Subject) + len(m.Body)) }

// MessageID names message seq of seat's inbox, unique in the
// installation: an address holds no ".", so the seat reads back from it.
func MessageID(seat string, seq uint64) string {
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
	if !ok || !found || perr != nil || seq == 0 || seat == "" || MessageID(seat, seq) != id {
		return "", 0, fmt.Errorf("%w %s: ids are m-<number>.<seat>, as list shows them", ErrBadMessageID, clip(id))
	}
	return seat, seq, nil
}

// SeqIn reads id back to its sequence in seat's inbox; an id of another
// seat's inbox is one this inbox never held.
func SeqIn(seat, id string) (uint64, error) {
	of, seq, err := ParseID(id)
	if err != nil {
		return 0, err
	}
	if of != seat {
		return 0, fmt.Errorf("%w: %s is a message of %s's inbox, not of %s's", ErrNoMessage, clip(id), of, seat)
	}
	return seq, nil
}

// CheckMessage refuses what no inbox should hold.
func CheckMessage(subject, body string) error {
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
