package hubconsole

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/channel"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/ui"
)

// The console's inbox over the hub client's human channel: Client is a
// ui.InboxClient, so the console shows the inbox view.
var _ ui.InboxClient = (*Client)(nil)

// ErrReactionUnknown: the hub could not establish a reaction's outcome;
// reacting again (same item, same reaction) returns the one terminal outcome.
var ErrReactionUnknown = errors.New("reaction outcome unknown; react again with the same reaction to learn it")

// inboxPage is the page size the inbox is read in.
const inboxPage = 500

// Inbox reads the operator's inbox page by page and keeps the newest keep
// items, with the status and the reaction catalogue.
func (k *Client) Inbox(ctx context.Context, keep int) (ui.InboxState, error) {
	var items []ui.InboxItem
	after := ""
	for {
		page, err := k.c.Inbox(ctx, after, inboxPage)
		if err != nil {
			return ui.InboxState{}, err
		}
		for _, it := range page.Items {
			items = append(items, uiItem(it))
		}
		if len(items) > keep { // bounded while reading, whatever the inbox holds
			items = append(items[:0], items[len(items)-keep:]...)
		}
		if after = page.Next; after == "" {
			break
		}
	}
	st, err := k.c.InboxStatus(ctx)
	if err != nil {
		return ui.InboxState{}, err
	}
	return ui.InboxState{Items: items, InboxStatus: uiStatus(st), Reactions: st.Reactions}, nil
}

// InboxStatus is the unread count and who is typing.
func (k *Client) InboxStatus(ctx context.Context) (ui.InboxStatus, error) {
	st, err := k.c.InboxStatus(ctx)
	return uiStatus(st), err
}

// ReplyInbox replies to a persona's item.
func (k *Client) ReplyInbox(ctx context.Context, id, text string) error {
	_, err := k.c.ReplyInbox(ctx, id, text)
	return err
}

// ReactInbox reacts under the correlation id the command line uses by
// default (react-<id>-<reaction>), so reacting again from either returns
// the one terminal outcome.
func (k *Client) ReactInbox(ctx context.Context, id, reaction string) (ui.ReactOutcome, error) {
	o, err := k.c.ReactInbox(ctx, id, reaction, "react-"+id+"-"+reaction)
	switch {
	case err != nil:
		return ui.ReactOutcome{}, err
	case !o.Known:
		return ui.ReactOutcome{}, fmt.Errorf("%s %s: %w", id, reaction, ErrReactionUnknown)
	}
	return ui.ReactOutcome{Applied: o.Applied, Reason: o.Reason}, nil
}

// AckInbox marks a persona's item read.
func (k *Client) AckInbox(ctx context.Context, id string) error {
	_, err := k.c.AckInbox(ctx, id)
	return err
}

// TickInbox ticks or unticks a todo line.
func (k *Client) TickInbox(ctx context.Context, id string, index int, done bool) error {
	_, err := k.c.TickInbox(ctx, id, index, done)
	return err
}

// ErrSaveRemote: a remote console (over SSH) does not save inbox files,
// because the path would be on the server, not the human's machine.
var ErrSaveRemote = errors.New("saving a file is off in a remote console: it would be written on the server; the item shows its name, size and sha256")

// SaveInboxFile saves a file item to a new file at path; a remote console
// refuses with ErrSaveRemote.
func (k *Client) SaveInboxFile(ctx context.Context, id, path string) (string, error) {
	if k.remote {
		return "", ErrSaveRemote
	}
	_, err := k.c.SaveInboxFile(ctx, id, path)
	return path, err
}

// AnswerInbox answers a card with one of its actions.
func (k *Client) AnswerInbox(ctx context.Context, id, action string) error {
	_, err := k.c.AnswerInbox(ctx, id, action)
	return err
}

// channelChange maps a channel item or typing change of the stream (its
// decoded payload; nil for a cleared typing indicator) that belongs to
// human; the stream carries every human's, which are dropped.
func channelChange(ch hubapi.Change, payload any, human string) []ui.Change {
	switch v := payload.(type) {
	case channel.Item:
		if ch.Delete || v.Human != human {
			return nil
		}
		return []ui.Change{{Seq: ch.Seq, Kind: ui.InboxItemChanged, Item: uiItem(v)}}
	}
	// A typing change's id names both: <human>/<persona generation id>.
	who, id, ok := strings.Cut(ch.ID, "/")
	if ch.Kind != hubapi.KindTyping || !ok || who != human {
		return nil
	}
	if t, isTyping := payload.(channel.Typing); isTyping && !ch.Delete {
		return []ui.Change{{Seq: ch.Seq, Kind: ui.TypingChanged, Typing: uiTyping(t)}}
	}
	return []ui.Change{{Seq: ch.Seq, Kind: ui.TypingChanged, Typing: ui.Typing{ID: id}}}
}

func uiStatus(st hubapi.InboxStatus) ui.InboxStatus {
	out := ui.InboxStatus{Unread: st.Unread}
	for _, t := range st.Typing {
		out.Typing = append(out.Typing, uiTyping(t))
	}
	return out
}

func uiTyping(t channel.Typing) ui.Typing {
	return ui.Typing{ID: t.Persona.ID, Persona: t.Persona.Address, Thread: t.Thread, Until: t.Until}
}

func uiItem(it channel.Item) ui.InboxItem {
	out := ui.InboxItem{ID: it.ID, Thread: it.Thread, ReplyTo: it.ReplyTo, Persona: it.Persona.Address, Name: it.Persona.Name,
		Generation: it.Persona.Generation, FromHuman: it.FromHuman, Kind: string(it.Kind), Text: it.Text, Title: it.Title,
		Actions: it.Actions, At: it.At, Acked: it.AckedAt != nil}
	for _, t := range it.Todo {
		out.Todo = append(out.Todo, ui.TodoLine{Text: t.Text, Done: t.Done})
	}
	if f := it.File; f != nil {
		out.File = &ui.InboxFile{Name: f.Name, Size: f.Size, SHA256: f.SHA256, Path: f.Path}
	}
	for _, r := range it.Reactions {
		out.Reactions = append(out.Reactions, ui.ItemReaction{Reaction: r.Reaction, By: r.By})
	}
	if a := it.Answer; a != nil {
		out.Answer = &ui.CardAnswer{Action: a.Action, By: a.By, At: a.At}
	}
	return out
}
