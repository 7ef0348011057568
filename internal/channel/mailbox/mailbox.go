// Package mailbox is the stored book of the human channel (internal/channel
// holds its items, kinds, reactions and rules as values): each human's
// inbox in the order written, its bookkeeping, sent files' bytes and who
// is typing. Every change is a store.Plan; the use case joins it with the
// persona's admission and fence conditions and commits one transaction.
package mailbox

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/channel"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/paging/pager"
	"github.com/virgo-hub/virgo-tui/internal/quota"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
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

// book is a human's channel bookkeeping.
type book struct {
	Last   uint64 `json:"last"`
	Unread int    `json:"unread"`
	// UnreadBytes counts the Size of the unread items, the unread_bytes
	// quota's count. A book written before it was counted starts at
	// zero, so an ack never takes it below zero.
	UnreadBytes int64 `json:"unread_bytes,omitempty"`
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

func keyBook(human string) string { return PrefixBook + human }

func keyFile(human, id string) string { return PrefixFile + human + "/" + id }

func keyTyping(human, personaID string) string {
	return PrefixTyping + human + "/" + personaID
}

// Get returns item id of human's inbox and its revision.
func (b *Book) Get(ctx context.Context, human, id string) (channel.Item, int64, error) {
	seq, err := channel.ParseItemID(id)
	if err != nil {
		return channel.Item{}, 0, err
	}
	var it channel.Item
	rev, err := store.GetJSON(ctx, b.st, keyItem(human, seq), &it)
	if err == nil && rev == 0 {
		err = fmt.Errorf("%w: %s has no item %s", channel.ErrNoItem, human, id)
	}
	return it, rev, err
}

// PlanPost plans adding it (its Human, Persona, FromHuman, Kind and
// content set) to the human's inbox: it gets its id, thread (its own id
// unless it joins one) and time. data is a file item's bytes. An item the
// persona sends counts unread until the human acks it.
func (b *Book) PlanPost(ctx context.Context, it channel.Item, data []byte) (channel.Item, store.Plan, error) {
	if err := channel.CheckItem(it); err != nil {
		return channel.Item{}, store.Plan{}, err
	}
	if it.Kind == channel.KindFile && int64(len(data)) != it.File.Size {
		return channel.Item{}, store.Plan{}, fmt.Errorf("%w: the file changed while it was read", channel.ErrBadItem)
	}
	var bk book
	rev, err := store.GetJSON(ctx, b.st, keyBook(it.Human), &bk)
	if err != nil {
		return channel.Item{}, store.Plan{}, err
	}
	if !it.FromHuman {
		if bk.Unread >= channel.MaxUnread {
			return channel.Item{}, store.Plan{}, fmt.Errorf("%w: %s has %d unread (the limit)", channel.ErrHumanBusy, it.Human, bk.Unread)
		}
		if err := quota.Check(quota.UnreadBytes, it.Human, bk.UnreadBytes, it.Size(), b.unreadBytes, "the human acks items to free it"); err != nil {
			return channel.Item{}, store.Plan{}, err
		}
		bk.Unread++
		bk.UnreadBytes += it.Size()
	}
	bk.Last++
	it.ID, it.At, it.AckedAt, it.Reactions = channel.ItemID(bk.Last), b.now().UTC(), nil, nil
	if it.Thread == "" {
		it.Thread = it.ID
	}
	bookOp, err := store.PutJSON(keyBook(it.Human), bk)
	if err != nil {
		return channel.Item{}, store.Plan{}, err
	}
	itemOp, err := store.PutJSON(keyItem(it.Human, bk.Last), it)
	if err != nil {
		return channel.Item{}, store.Plan{}, err
	}
	plan := store.Plan{Conds: []store.Cond{{Key: bookOp.Key, ModRev: rev}, {Key: itemOp.Key}}, Ops: []store.Op{bookOp, itemOp}}
	if it.Kind == channel.KindFile {
		plan.Ops = append(plan.Ops, store.Put(keyFile(it.Human, it.ID), data))
	}
	return it, plan, nil
}

// update plans rewriting item id of human's inbox with change, guarded on
// its revision; change returns false when nothing is to be written.
func (b *Book) update(ctx context.Context, human, id string, change func(*channel.Item) (bool, error)) (channel.Item, store.Plan, error) {
	it, rev, err := b.Get(ctx, human, id)
	if err != nil {
		return channel.Item{}, store.Plan{}, err
	}
	wrote, err := change(&it)
	if err != nil || !wrote {
		return it, store.Plan{}, err
	}
	seq, _ := channel.ParseItemID(id)
	op, err := store.PutJSON(keyItem(human, seq), it)
	if err != nil {
		return channel.Item{}, store.Plan{}, err
	}
	return it, store.Plan{Conds: []store.Cond{{Key: op.Key, ModRev: rev}}, Ops: []store.Op{op}}, nil
}

// PlanAck plans the recipient's ack of item id: byHuman acks a persona's
// item (one fewer unread), otherwise the persona at seat acks one of the
// human's items to it. Acking again writes nothing.
func (b *Book) PlanAck(ctx context.Context, human, id string, byHuman bool, seat string) (channel.Item, store.Plan, error) {
	var wasUnread bool
	it, plan, err := b.update(ctx, human, id, func(it *channel.Item) (bool, error) {
		if it.FromHuman == byHuman || (!byHuman && it.Persona.Address != seat) {
			return false, fmt.Errorf("%w: %s is not an item to %s", channel.ErrWrongSide, id, ackerName(byHuman, human, seat))
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
		return channel.Item{}, store.Plan{}, err
	}
	bk.Unread = max(bk.Unread-1, 0)
	bk.UnreadBytes = max(bk.UnreadBytes-it.Size(), 0)
	op, err := store.PutJSON(keyBook(human), bk)
	plan.Join(store.Plan{Conds: []store.Cond{{Key: op.Key, ModRev: rev}}, Ops: []store.Op{op}})
	return it, plan, err
}

// PlanTick plans the human ticking (done) or unticking todo line index
// of a todo card.
func (b *Book) PlanTick(ctx context.Context, human, id string, index int, done bool) (channel.Item, store.Plan, error) {
	return b.update(ctx, human, id, func(it *channel.Item) (bool, error) {
		if it.Kind != channel.KindTodo || it.FromHuman {
			return false, fmt.Errorf("%w: %s is a %s, not a persona's todo card", channel.ErrWrongSide, id, it.Kind)
		}
		if index < 0 || index >= len(it.Todo) {
			return false, fmt.Errorf("%w: %s has items 0 to %d", channel.ErrBadItem, id, len(it.Todo)-1)
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
func (b *Book) PlanAnswer(ctx context.Context, human, id, action string) (channel.Item, store.Plan, error) {
	return b.update(ctx, human, id, func(it *channel.Item) (bool, error) {
		switch {
		case it.Kind != channel.KindCard || it.FromHuman:
			return false, fmt.Errorf("%w: %s is a %s, not a persona's card", channel.ErrWrongSide, id, it.Kind)
		case it.Answer != nil && it.Answer.Action == action:
			return false, nil
		case it.Answer != nil:
			return false, fmt.Errorf("%s: %w (%s)", id, channel.ErrAnswered, strconv.QuoteToASCII(it.Answer.Action))
		case !slices.Contains(it.Actions, action):
			return false, fmt.Errorf("%w %s: %s offers %s", channel.ErrNoAction, strconv.QuoteToASCII(channel.Clip(action)), id, strings.Join(it.Actions, ", "))
		}
		it.Answer = &channel.Answer{Action: action, By: human, At: b.now().UTC()}
		return true, nil
	})
}

// PlanReact plans reaction by by (a human principal or a persona address)
// on item id; the same reaction by the same one again writes nothing, so a
// retried reaction applies once.
func (b *Book) PlanReact(ctx context.Context, human, id, reaction, by string) (channel.Item, store.Plan, error) {
	if !slices.Contains(channel.ReactionIDs, reaction) {
		return channel.Item{}, store.Plan{}, fmt.Errorf("%w %s: one of %s", channel.ErrUnknownReaction, strconv.QuoteToASCII(channel.Clip(reaction)), strings.Join(channel.ReactionIDs, ", "))
	}
	return b.update(ctx, human, id, func(it *channel.Item) (bool, error) {
		for _, r := range it.Reactions {
			if r.Reaction == reaction && r.By == by {
				return false, nil
			}
		}
		if len(it.Reactions) >= channel.MaxReactions {
			return false, fmt.Errorf("%w: %s holds %d reactions (the limit)", channel.ErrBadItem, id, channel.MaxReactions)
		}
		it.Reactions = append(it.Reactions, channel.Reaction{Reaction: reaction, By: by, At: b.now().UTC()})
		return true, nil
	})
}

// PlanTyping plans showing (on) or clearing persona's typing indicator in
// human's channel.
func (b *Book) PlanTyping(human string, persona coord.Sender, thread string, on bool) (channel.Typing, store.Plan, error) {
	key := keyTyping(human, persona.ID)
	if !on {
		return channel.Typing{}, store.Plan{Ops: []store.Op{{Key: key, Delete: true}}}, nil
	}
	t := channel.Typing{Persona: persona, Thread: thread, Until: b.now().UTC().Add(channel.TypingFor)}
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
		return nil, fmt.Errorf("%w: %s has no file item %s", channel.ErrNoItem, human, id)
	}
	return kv.Value, err
}

// Inbox returns one page of human's channel (both directions), oldest
// first, continuing the paging token ("" for the first page).
func (b *Book) Inbox(ctx context.Context, human, token string, limit int) (channel.Page, error) {
	return pager.Read(ctx, b.st, ItemPrefix(human), token, limit, func(kv store.KV) (channel.Item, bool, error) {
		var it channel.Item
		if err := strictjson.DecodeOpen(kv.Value, &it); err != nil {
			return channel.Item{}, false, fmt.Errorf("read %s: %w: %v", kv.Key, store.ErrCorrupt, err)
		}
		return it, true, nil
	})
}

// Typing lists the typing indicators in human's channel still showing.
func (b *Book) Typing(ctx context.Context, human string) ([]channel.Typing, error) {
	kvs, err := b.st.List(ctx, PrefixTyping+human+"/")
	if err != nil {
		return nil, err
	}
	now := b.now()
	var out []channel.Typing
	for _, kv := range kvs {
		var t channel.Typing
		if strictjson.DecodeOpen(kv.Value, &t) == nil && t.Until.After(now) {
			out = append(out, t)
		}
	}
	return out, nil
}

func ackerName(byHuman bool, human, seat string) string {
	if byHuman {
		return human
	}
	return seat
}
