// Package channel owns the human channel, virgo-channel: what personas
// send their bound human — messages, replies, cards, todo cards, files —
// and what the human answers, reacts, acks and ticks, kept per human as
// one ordered list of items (the human's inbox) whose threads the console
// shows.
//
// The package holds the values and their rules; channel/mailbox stores
// them. Every change is a store.Plan; the use case joins it with the
// persona's admission and fence conditions and commits one transaction.
// Reactions end in a definitive outcome through queue.Reactions.
package channel

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/termtext"
)

// Surface is the one channel human surfaces are served through.
const Surface = "virgo-channel"

// Limits of the channel.
const (
	MaxText    = 16 << 10 // a message's, reply's or card body's bytes
	MaxLine    = 256      // a title's, caption's, action's or todo item's bytes
	MaxActions = 8        // a card's actions
	MaxTodo    = 64       // a todo card's items
	MaxFile    = 1 << 20  // a sent file's bytes
	// MaxReactions bounds the reactions one item keeps.
	MaxReactions = 32
	// MaxUnread bounds what waits unread by one human: a persona cannot
	// flood its human.
	MaxUnread = 10_000
	// TypingFor is how long a typing indicator shows without a renewal.
	TypingFor = 30 * time.Second
)

// Named errors of the channel.
var (
	// ErrNoItem: no item with this id in the human's inbox.
	ErrNoItem = errors.New("no such item in the human channel")
	// ErrBadItem: an item that breaks the channel's rules (empty text,
	// over a limit, unsafe characters, a todo without items, …).
	ErrBadItem = errors.New("invalid human-channel item")
	// ErrBadItemID: an id that is not h-<number>.
	ErrBadItemID = errors.New("invalid human-channel item id")
	// ErrWrongSide: the item is not one this caller may answer (a persona
	// acks or replies to the human's items, the human to a persona's; a
	// todo is ticked by the human only).
	ErrWrongSide = errors.New("not an item this caller may answer")
	// ErrUnknownReaction: a reaction not in the catalogue (ReactionIDs).
	ErrUnknownReaction = errors.New("unknown reaction")
	// ErrHumanBusy: the human has MaxUnread items unread.
	ErrHumanBusy = errors.New("the human has too many unread items")
	// ErrAnswered: a card takes one answer; the one recorded stands.
	ErrAnswered = errors.New("the card is answered already; its answer stands")
	// ErrNoAction: an answer that is not one of the card's actions.
	ErrNoAction = errors.New("not one of the card's actions")
	// ErrFileTooLarge: a file over MaxFile.
	ErrFileTooLarge = errors.New("file is over the human channel's limit")
)

// ReactionIDs is the reaction catalogue of the channel (list_reaction_ids):
// the one table both sides react from.
var ReactionIDs = []string{"ack", "approve", "reject", "question", "done", "thumbs_up", "thumbs_down"}

// Kind is what an item is.
type Kind string

// The kinds of item.
const (
	KindMessage Kind = "message"
	KindCard    Kind = "card"
	KindTodo    Kind = "todo"
	KindFile    Kind = "file"
)

// TodoItem is one line of a todo card.
type TodoItem struct {
	Text   string     `json:"text"`
	Done   bool       `json:"done"`
	DoneAt *time.Time `json:"done_at,omitempty"`
}

// File is what a file item records of the file (its bytes are kept apart).
type File struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	// Path is where it was in the persona's workspace.
	Path string `json:"path"`
}

// Reaction is one reaction on an item.
type Reaction struct {
	Reaction string    `json:"reaction"`
	By       string    `json:"by"`
	At       time.Time `json:"at"`
}

// Item is one entry of a human's channel.
type Item struct {
	// ID is "h-" and the item's sequence in the human's inbox.
	ID string `json:"id"`
	// Human is the bound human, "human:<name>".
	Human string `json:"human"`
	// Persona is the persona of the conversation, as the registry has it.
	Persona coord.Sender `json:"persona"`
	// FromHuman is true for what the human wrote (a reply), false for
	// what the persona sent.
	FromHuman bool `json:"from_human"`
	Kind      Kind `json:"kind"`
	// Thread is the id of the thread's first item.
	Thread  string     `json:"thread"`
	ReplyTo string     `json:"reply_to,omitempty"`
	Text    string     `json:"text,omitempty"`
	Title   string     `json:"title,omitempty"`
	Actions []string   `json:"actions,omitempty"`
	Todo    []TodoItem `json:"todo,omitempty"`
	File    *File      `json:"file,omitempty"`
	At      time.Time  `json:"at"`
	// AckedAt is when the recipient (the human for a persona's item, the
	// persona for the human's) acked it.
	AckedAt   *time.Time `json:"acked_at,omitempty"`
	Reactions []Reaction `json:"reactions,omitempty"`
	// Answer is the human's answer to a card: the one action chosen.
	Answer *Answer `json:"answer,omitempty"`
}

// Answer is the human's answer to a card: one of its actions, recorded
// once and delivered to the persona that asked.
type Answer struct {
	Action string    `json:"action"`
	By     string    `json:"by"`
	At     time.Time `json:"at"`
}

// Draft is what a persona writes to its human: a message (a reply when
// ReplyTo names the human's item), a card or a todo card.
type Draft struct {
	Kind    Kind     `json:"kind"`
	Thread  string   `json:"thread,omitempty"`
	ReplyTo string   `json:"reply_to,omitempty"`
	Text    string   `json:"text,omitempty"`
	Title   string   `json:"title,omitempty"`
	Actions []string `json:"actions,omitempty"`
	Todo    []string `json:"todo,omitempty"`
}

// Typing is a persona's typing indicator in its human's channel.
type Typing struct {
	Persona coord.Sender `json:"persona"`
	Thread  string       `json:"thread,omitempty"`
	Until   time.Time    `json:"until"`
}

// Size is what an item counts against its human's unread_bytes quota: the
// bytes its sender chose — texts, title, actions, todo lines and a file's
// bytes. None of them changes after the item is posted, so its ack frees
// exactly what its post counted.
func (it Item) Size() int64 {
	n := int64(len(it.Text) + len(it.Title))
	for _, a := range it.Actions {
		n += int64(len(a))
	}
	for _, t := range it.Todo {
		n += int64(len(t.Text))
	}
	if it.File != nil {
		n += it.File.Size + int64(len(it.File.Name)+len(it.File.Path))
	}
	return n
}

// ItemID names item seq of a human's inbox.
func ItemID(seq uint64) string { return "h-" + strconv.FormatUint(seq, 10) }

// ParseItemID reads an item id back to its sequence.
func ParseItemID(id string) (uint64, error) {
	digits, ok := strings.CutPrefix(id, "h-")
	seq, err := strconv.ParseUint(digits, 10, 64)
	if !ok || err != nil || seq == 0 || ItemID(seq) != id {
		return 0, fmt.Errorf("%w %s: ids are h-<number>", ErrBadItemID, strconv.QuoteToASCII(Clip(id)))
	}
	return seq, nil
}

// Clip cuts a caller's text to 64 bytes for an error message, so a
// hostile id or action does not grow the answer.
func Clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// CheckItem applies the channel's rules to an item about to be written.
func CheckItem(it Item) error {
	bad := func(err error) error { return fmt.Errorf("%w: %w", ErrBadItem, err) }
	if err := termtext.CheckField("text", it.Text, MaxText, true); err != nil {
		return bad(err)
	}
	if err := termtext.CheckField("title", it.Title, MaxLine, false); err != nil {
		return bad(err)
	}
	if len(it.Actions) > MaxActions {
		return fmt.Errorf("%w: %d actions, at most %d", ErrBadItem, len(it.Actions), MaxActions)
	}
	for _, a := range it.Actions {
		if err := termtext.CheckField("actions", a, MaxLine, false); err != nil || strings.TrimSpace(a) == "" {
			return fmt.Errorf("%w: action %s", ErrBadItem, strconv.QuoteToASCII(Clip(a)))
		}
	}
	if len(it.Todo) > MaxTodo {
		return fmt.Errorf("%w: %d todo items, at most %d", ErrBadItem, len(it.Todo), MaxTodo)
	}
	for _, t := range it.Todo {
		if err := termtext.CheckField("items", t.Text, MaxLine, false); err != nil || strings.TrimSpace(t.Text) == "" {
			return fmt.Errorf("%w: todo item %s", ErrBadItem, strconv.QuoteToASCII(Clip(t.Text)))
		}
	}
	switch it.Kind {
	case KindMessage:
		if strings.TrimSpace(it.Text) == "" {
			return fmt.Errorf("%w: the text is empty", ErrBadItem)
		}
	case KindCard, KindTodo:
		if strings.TrimSpace(it.Title) == "" {
			return fmt.Errorf("%w: a %s needs a title", ErrBadItem, it.Kind)
		}
		if it.Kind == KindTodo && len(it.Todo) == 0 {
			return fmt.Errorf("%w: a todo card needs at least one item", ErrBadItem)
		}
	case KindFile:
		if it.File == nil {
			return fmt.Errorf("%w: a file item without its file", ErrBadItem)
		}
		if err := termtext.CheckField("name", it.File.Name, MaxLine, false); err != nil {
			return bad(err)
		}
	default:
		return fmt.Errorf("%w: kind %q", ErrBadItem, it.Kind)
	}
	return nil
}

// Page is one page of a human's channel, oldest first.
type Page = paging.Page[Item]
