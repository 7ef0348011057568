package ui

import (
	"context"
	"time"
)

// InboxClient is what the inbox view asks of the hub: the operator's side
// of the human channel. A Client that also implements it gets the inbox
// view (the hub console adapter does); a Client that does not shows the
// view as not wired. Every action goes through the hub, which audits it.
type InboxClient interface {
	// Inbox returns the newest keep items of the operator's inbox (both
	// directions, oldest first), the unread count, who is typing and the
	// reaction catalogue.
	Inbox(ctx context.Context, keep int) (InboxState, error)
	// InboxStatus returns the unread count and who is typing.
	InboxStatus(ctx context.Context) (InboxStatus, error)
	// ReplyInbox replies to a persona's item id with text.
	ReplyInbox(ctx context.Context, id, text string) error
	// ReactInbox reacts to item id; the outcome is applied, or not applied
	// with the channel's reason. One call is one correlation id: the
	// client retries under it, so a retried reaction applies at most once.
	ReactInbox(ctx context.Context, id, reaction string) (ReactOutcome, error)
	// AckInbox marks a persona's item id read.
	AckInbox(ctx context.Context, id string) error
	// TickInbox ticks (done) or unticks line index of todo card id.
	TickInbox(ctx context.Context, id string, index int, done bool) error
	// SaveInboxFile saves file item id's bytes, checked against its
	// recorded sha256, to a new file at path (never over an existing one)
	// and returns the path written.
	SaveInboxFile(ctx context.Context, id, path string) (string, error)
	// AnswerInbox answers card id with one of its actions; the persona
	// that sent the card receives the answer as a message. The same answer
	// again changes nothing; another is refused, naming the one that
	// stands.
	AnswerInbox(ctx context.Context, id, action string) error
}

// InboxState is the inbox the console starts from.
type InboxState struct {
	Items []InboxItem
	InboxStatus
	// Reactions is the channel's reaction catalogue: the ids the operator may react with.
	Reactions []string
}

// InboxStatus is the operator's unread count and the live typing
// indicators.
type InboxStatus struct {
	Unread int
	Typing []Typing
}

// The kinds of inbox item.
const (
	ItemMessage = "message"
	ItemCard    = "card"
	ItemTodo    = "todo"
	ItemFile    = "file"
)

// InboxItem is one item of the operator's inbox: what a persona sent (a
// message, a card, a todo card, a file) or what the operator replied.
type InboxItem struct {
	// ID is the hub's item id ("h-12"), Thread the id of its thread's
	// first item, ReplyTo the item it answers.
	ID, Thread, ReplyTo string
	// Persona is the address of the persona of the conversation, Name its
	// for-life name, Generation its generation.
	Persona, Name string
	Generation    int
	// FromHuman marks the operator's own replies.
	FromHuman bool
	Kind      string
	Text      string
	Title     string
	Actions   []string
	Todo      []TodoLine
	File      *InboxFile
	At        time.Time
	// Acked says the recipient marked the item read.
	Acked     bool
	Reactions []ItemReaction
	// Answer is the operator's answer to a card, nil while it has none.
	Answer *CardAnswer
}

// CardAnswer is the one action a card was answered with, by whom, when.
type CardAnswer struct {
	Action, By string
	At         time.Time
}

// TodoLine is one line of a todo card.
type TodoLine struct {
	Text string
	Done bool
}

// InboxFile is what a file item records of its file.
type InboxFile struct {
	Name   string
	Size   int64
	SHA256 string
	// Path is where the file was in the persona's workspace.
	Path string
}

// ItemReaction is one reaction on an item.
type ItemReaction struct {
	Reaction, By string
}

// Typing is a persona's typing indicator.
type Typing struct {
	// ID is the persona generation's id: one indicator per generation.
	ID      string
	Persona string
	Thread  string
	// Until is when the indicator lapses; zero clears it.
	Until time.Time
}

// ReactOutcome is the terminal outcome of a reaction.
type ReactOutcome struct {
	Applied bool
	Reason  string
}
