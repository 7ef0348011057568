// Package channel owns the human channel, virgo-channel: what personas
// send their bound human — messages, replies, cards, todo cards, files —
// and what the human answers, reacts, acks and ticks, kept per human as
// one ordered list of items (the human's inbox) whose threads the console
// shows.
//
// Every change is a store.Plan; the use case joins it with the persona's
// admission and fence conditions and commits one transaction. Reactions
// end in a definitive outcome through queue.Reactions.
package channel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/paging/pager"
	"github.com/virgo-hub/virgo-tui/internal/quota"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/termtext"
)

// Store key layout.
const (
	// PrefixItem + human + "/#" + 20-digit sequence → Item: a human's
	// inbox, both directions, in the order written.
	PrefixItem = "chan/item/"
	// PrefixBook + human → book: the human's last sequence and unread count.
	PrefixBook = "chan/book/"
	// PrefixFile + human + "/" + item id → the bytes of a sent file.
	PrefixFile = "chan/file/"
	// PrefixTyping + human + "/" + persona generation id → Typing.
	PrefixTyping = "chan/typing/"
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

// book is a human's channel bookkeeping.
type book struct {
	Last   uint64 `json:"last"`
	Unread int    `json:"unread"`
	// UnreadBytes counts the Size of the unread items, the unread_bytes
	// quota's count. A book written before it was counted starts at
	// zero, so an ack never takes it below zero.
	UnreadBytes int64 `json:"unread_bytes,omitempty"`
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

// Book reads and plans the human channel in a store.
type Book struct {
	st  store.Store
	now func() time.Time
	// unreadBytes is the quota of one human's unread bytes.
	unreadBytes int64
}

// New returns the human channel over st; now is its clock (nil:
// time.Now); q's UnreadBytes bounds each human's unread bytes (zero: its
// default).
func New(st store.Store, now func() time.Time, q quota.Limits) *Book {
	if now == nil {
		now = time.Now
	}
	return &Book{st: st, now: now, unreadBytes: q.WithDefaults().UnreadBytes}
}

// ItemPrefix is the key prefix of human's inbox ("#" is in no principal).
func ItemPrefix(human string) string { return PrefixItem + human + "/#" }

func keyItem(human string, seq uint64) string { return fmt.Sprintf("%s%020d", ItemPrefix(human), seq) }
func keyBook(human string) string             { return PrefixBook + human }
func keyFile(human, id string) string         { return PrefixFile + human + "/" + id }
func keyTyping(human, personaID string) string {
	return PrefixTyping + human + "/" + personaID
}

func itemID(seq uint64) string { return "h-" + strconv.FormatUint(seq, 10) }

// ParseItemID reads an item id back to its sequence.
func ParseItemID(id string) (uint64, error) {
	digits, ok := strings.CutPrefix(id, "h-")
	seq, err := strconv.ParseUint(digits, 10, 64)
	if !ok || err != nil || seq == 0 || itemID(seq) != id {
		return 0, fmt.Errorf("%w %s: ids are h-<number>", ErrBadItemID, strconv.QuoteToASCII(clip(id)))
	}
	return seq, nil
}

func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// Get returns item id of human's inbox and its revision.
func (b *Book) Get(ctx context.Context, human, id string) (Item, int64, error) {
	seq, err := ParseItemID(id)
	if err != nil {
		return Item{}, 0, err
	}
	var it Item
	rev, err := store.GetJSON(ctx, b.st, keyItem(human, seq), &it)
	if err == nil && rev == 0 {
		err = fmt.Errorf("%w: %s has no item %s", ErrNoItem, human, id)
	}
	return it, rev, err
}

// checkItem applies the channel's rules to an item about to be written.
func checkItem(it Item) error {
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
			return fmt.Errorf("%w: action %s", ErrBadItem, strconv.QuoteToASCII(clip(a)))
		}
	}
	if len(it.Todo) > MaxTodo {
		return fmt.Errorf("%w: %d todo items, at most %d", ErrBadItem, len(it.Todo), MaxTodo)
	}
	for _, t := range it.Todo {
		if err := termtext.CheckField("items", t.Text, MaxLine, false); err != nil || strings.TrimSpace(t.Text) == "" {
			return fmt.Errorf("%w: todo item %s", ErrBadItem, strconv.QuoteToASCII(clip(t.Text)))
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

// PlanPost plans adding it (its Human, Persona, FromHuman, Kind and
// content set) to the human's inbox: it gets its id, thread (its own id
// unless it joins one) and time. data is a file item's bytes. An item the
// persona sends counts unread until the human acks it.
func (b *Book) PlanPost(ctx context.Context, it Item, data []byte) (Item, store.Plan, error) {
	if err := checkItem(it); err != nil {
		return Item{}, store.Plan{}, err
	}
	if it.Kind == KindFile && int64(len(data)) != it.File.Size {
		return Item{}, store.Plan{}, fmt.Errorf("%w: the file changed while it was read", ErrBadItem)
	}
	var bk book
	rev, err := store.GetJSON(ctx, b.st, keyBook(it.Human), &bk)
	if err != nil {
		return Item{}, store.Plan{}, err
	}
	if !it.FromHuman {
		if bk.Unread >= MaxUnread {
			return Item{}, store.Plan{}, fmt.Errorf("%w: %s has %d unread (the limit)", ErrHumanBusy, it.Human, bk.Unread)
		}
		if err := quota.Check(quota.UnreadBytes, it.Human, bk.UnreadBytes, it.Size(), b.unreadBytes, "the human acks items to free it"); err != nil {
			return Item{}, store.Plan{}, err
		}
		bk.Unread++
		bk.UnreadBytes += it.Size()
	}
	bk.Last++
	it.ID, it.At, it.AckedAt, it.Reactions = itemID(bk.Last), b.now().UTC(), nil, nil
	if it.Thread == "" {
		it.Thread = it.ID
	}
	bookOp, err := store.PutJSON(keyBook(it.Human), bk)
	if err != nil {
		return Item{}, store.Plan{}, err
	}
	itemOp, err := store.PutJSON(keyItem(it.Human, bk.Last), it)
	if err != nil {
		return Item{}, store.Plan{}, err
	}
	plan := store.Plan{Conds: []store.Cond{{Key: bookOp.Key, ModRev: rev}, {Key: itemOp.Key}}, Ops: []store.Op{bookOp, itemOp}}
	if it.Kind == KindFile {
		plan.Ops = append(plan.Ops, store.Put(keyFile(it.Human, it.ID), data))
	}
	return it, plan, nil
}

// update plans rewriting item id of human's inbox with change, guarded on
// its revision; change returns false when nothing is to be written.
func (b *Book) update(ctx context.Context, human, id string, change func(*Item) (bool, error)) (Item, store.Plan, error) {
	it, rev, err := b.Get(ctx, human, id)
	if err != nil {
		return Item{}, store.Plan{}, err
	}
	wrote, err := change(&it)
	if err != nil || !wrote {
		return it, store.Plan{}, err
	}
	seq, _ := ParseItemID(id)
	op, err := store.PutJSON(keyItem(human, seq), it)
	if err != nil {
		return Item{}, store.Plan{}, err
	}
	return it, store.Plan{Conds: []store.Cond{{Key: op.Key, ModRev: rev}}, Ops: []store.Op{op}}, nil
}

// PlanAck plans the recipient's ack of item id: byHuman acks a persona's
// item (one fewer unread), otherwise the persona at seat acks one of the
// human's items to it. Acking again writes nothing.
func (b *Book) PlanAck(ctx context.Context, human, id string, byHuman bool, seat string) (Item, store.Plan, error) {
	var wasUnread bool
	it, plan, err := b.update(ctx, human, id, func(it *Item) (bool, error) {
		if it.FromHuman == byHuman || (!byHuman && it.Persona.Address != seat) {
			return false, fmt.Errorf("%w: %s is not an item to %s", ErrWrongSide, id, ackerName(byHuman, human, seat))
		}
		if it.AckedAt != nil {
			return false, nil
		}
		now := b.now().UTC()
		it.AckedAt, wasUnread = &now, !it.FromHuman
		return true, nil
	})
	if err != nil || plan.Empty() || !wasUnread {
		return it, plan, err
	}
	var bk book
	rev, err := store.GetJSON(ctx, b.st, keyBook(human), &bk)
	if err != nil {
		return Item{}, store.Plan{}, err
	}
	bk.Unread = max(bk.Unread-1, 0)
	bk.UnreadBytes = max(bk.UnreadBytes-it.Size(), 0)
	op, err := store.PutJSON(keyBook(human), bk)
	plan.Join(store.Plan{Conds: []store.Cond{{Key: op.Key, ModRev: rev}}, Ops: []store.Op{op}})
	return it, plan, err
}

func ackerName(byHuman bool, human, seat string) string {
	if byHuman {
		return human
	}
	return seat
}

// PlanTick plans the human ticking (done) or unticking todo line index
// of a todo card.
func (b *Book) PlanTick(ctx context.Context, human, id string, index int, done bool) (Item, store.Plan, error) {
	return b.update(ctx, human, id, func(it *Item) (bool, error) {
		if it.Kind != KindTodo || it.FromHuman {
			return false, fmt.Errorf("%w: %s is a %s, not a persona's todo card", ErrWrongSide, id, it.Kind)
		}
		if index < 0 || index >= len(it.Todo) {
			return false, fmt.Errorf("%w: %s has items 0 to %d", ErrBadItem, id, len(it.Todo)-1)
		}
		t := &it.Todo[index]
		if t.Done == done {
			return false, nil
		}
		t.Done, t.DoneAt = done, nil
		if done {
			now := b.now().UTC()
			t.DoneAt = &now
		}
		return true, nil
	})
}

// PlanAnswer plans the human's answer to card id: one of its actions,
// recorded once. The same answer again writes nothing (a retry); another
// is ErrAnswered, naming the answer that stands.
func (b *Book) PlanAnswer(ctx context.Context, human, id, action string) (Item, store.Plan, error) {
	return b.update(ctx, human, id, func(it *Item) (bool, error) {
		switch {
		case it.Kind != KindCard || it.FromHuman:
			return false, fmt.Errorf("%w: %s is a %s, not a persona's card", ErrWrongSide, id, it.Kind)
		case it.Answer != nil && it.Answer.Action == action:
			return false, nil
		case it.Answer != nil:
			return false, fmt.Errorf("%s: %w (%s)", id, ErrAnswered, strconv.QuoteToASCII(it.Answer.Action))
		case !slices.Contains(it.Actions, action):
			return false, fmt.Errorf("%w %s: %s offers %s", ErrNoAction, strconv.QuoteToASCII(clip(action)), id, strings.Join(it.Actions, ", "))
		}
		it.Answer = &Answer{Action: action, By: human, At: b.now().UTC()}
		return true, nil
	})
}

// PlanReact plans reaction by by (a human principal or a persona address)
// on item id; the same reaction by the same one again writes nothing, so a
// retried reaction applies once.
func (b *Book) PlanReact(ctx context.Context, human, id, reaction, by string) (Item, store.Plan, error) {
	if !slices.Contains(ReactionIDs, reaction) {
		return Item{}, store.Plan{}, fmt.Errorf("%w %s: one of %s", ErrUnknownReaction, strconv.QuoteToASCII(clip(reaction)), strings.Join(ReactionIDs, ", "))
	}
	return b.update(ctx, human, id, func(it *Item) (bool, error) {
		for _, r := range it.Reactions {
			if r.Reaction == reaction && r.By == by {
				return false, nil
			}
		}
		if len(it.Reactions) >= MaxReactions {
			return false, fmt.Errorf("%w: %s holds %d reactions (the limit)", ErrBadItem, id, MaxReactions)
		}
		it.Reactions = append(it.Reactions, Reaction{Reaction: reaction, By: by, At: b.now().UTC()})
		return true, nil
	})
}

// PlanTyping plans showing (on) or clearing persona's typing indicator in
// human's channel.
func (b *Book) PlanTyping(human string, persona coord.Sender, thread string, on bool) (Typing, store.Plan, error) {
	key := keyTyping(human, persona.ID)
	if !on {
		return Typing{}, store.Plan{Ops: []store.Op{{Key: key, Delete: true}}}, nil
	}
	t := Typing{Persona: persona, Thread: thread, Until: b.now().UTC().Add(TypingFor)}
	op, err := store.PutJSON(key, t)
	return t, store.Plan{Ops: []store.Op{op}}, err
}

// Unread is how many of the personas' items human has not acked.
func (b *Book) Unread(ctx context.Context, human string) (int, error) {
	var bk book
	_, err := store.GetJSON(ctx, b.st, keyBook(human), &bk)
	return bk.Unread, err
}

// FileData returns the bytes of file item id.
func (b *Book) FileData(ctx context.Context, human, id string) ([]byte, error) {
	kv, err := b.st.Get(ctx, keyFile(human, id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s has no file item %s", ErrNoItem, human, id)
	}
	return kv.Value, err
}

// Page is one page of a human's channel, oldest first.
type Page = paging.Page[Item]

// Inbox returns one page of human's channel (both directions), oldest
// first, continuing the paging token ("" for the first page).
func (b *Book) Inbox(ctx context.Context, human, token string, limit int) (Page, error) {
	return pager.Read(ctx, b.st, ItemPrefix(human), token, limit, func(kv store.KV) (Item, bool, error) {
		var it Item
		if err := json.Unmarshal(kv.Value, &it); err != nil {
			return Item{}, false, fmt.Errorf("read %s: %w: %v", kv.Key, store.ErrCorrupt, err)
		}
		return it, true, nil
	})
}

// Typing lists the typing indicators in human's channel still showing.
func (b *Book) Typing(ctx context.Context, human string) ([]Typing, error) {
	kvs, err := b.st.List(ctx, PrefixTyping+human+"/")
	if err != nil {
		return nil, err
	}
	now := b.now()
	var out []Typing
	for _, kv := range kvs {
		var t Typing
		if json.Unmarshal(kv.Value, &t) == nil && t.Until.After(now) {
			out = append(out, t)
		}
	}
	return out, nil
}
