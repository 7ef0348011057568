package hubclient

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"

	"github.com/virgo-hub/virgo-tui/internal/channel"
	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// The human's side of the human channel, as the operator this client acts
// as: list, reply, react, ack, tick a todo, save a file. Live changes come
// on the change stream as hubapi.KindChannelItem (Data: channel.Item) and
// hubapi.KindTyping (Data: channel.Typing; cleared with Delete).

// ErrFileDigest: a file item's bytes did not match the sha256 it records.
var ErrFileDigest = errors.New("file does not match its recorded sha256")

// Inbox lists one page of the operator's channel (both directions), oldest
// first, continuing the token after ("" for the first page).
func (c *Client) Inbox(ctx context.Context, after string, limit int) (channel.Page, error) {
	q := url.Values{}
	if after != "" {
		q.Set("after", after)
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	var page channel.Page
	err := c.do(ctx, "GET", "/v1/inbox?"+q.Encode(), nil, &page)
	return page, err
}

// InboxStatus is the operator's unread count, who is typing, and the
// reaction catalogue.
func (c *Client) InboxStatus(ctx context.Context) (hubapi.InboxStatus, error) {
	var st hubapi.InboxStatus
	err := c.do(ctx, "GET", "/v1/inbox/status", nil, &st)
	return st, err
}

func inboxPath(id, action string) string { return "/v1/inbox/" + url.PathEscape(id) + "/" + action }

// ReplyInbox replies to a persona's item id; the reply reaches the
// persona's seat as a coordination message.
func (c *Client) ReplyInbox(ctx context.Context, id, text string) (channel.Item, error) {
	var it channel.Item
	err := c.do(ctx, "POST", inboxPath(id, "reply"), hubapi.InboxReply{Text: text}, &it)
	return it, err
}

// ReactInbox reacts to item id under correlation id corr: the outcome is
// applied, or not applied with a reason; retrying with corr returns the
// same terminal outcome.
func (c *Client) ReactInbox(ctx context.Context, id, reaction, corr string) (confirm.Outcome, error) {
	var o confirm.Outcome
	err := c.do(ctx, "POST", inboxPath(id, "react"), hubapi.InboxReact{Reaction: reaction, CorrelationID: corr}, &o)
	return o, err
}

// AckInbox marks a persona's item id read.
func (c *Client) AckInbox(ctx context.Context, id string) (channel.Item, error) {
	var it channel.Item
	err := c.do(ctx, "POST", inboxPath(id, "ack"), nil, &it)
	return it, err
}

// AnswerInbox answers card id with one of its actions; the persona that
// sent it receives the answer as a message.
func (c *Client) AnswerInbox(ctx context.Context, id, action string) (channel.Item, error) {
	var it channel.Item
	err := c.do(ctx, "POST", inboxPath(id, "answer"), hubapi.InboxAnswer{Action: action}, &it)
	return it, err
}

// TickInbox ticks (done) or unticks line index of todo card id.
func (c *Client) TickInbox(ctx context.Context, id string, index int, done bool) (channel.Item, error) {
	var it channel.Item
	err := c.do(ctx, "POST", inboxPath(id, "tick"), hubapi.InboxTick{Index: index, Done: done}, &it)
	return it, err
}

// InboxFile fetches the bytes of file item it and checks them against its
// recorded sha256 (ErrFileDigest otherwise).
func (c *Client) InboxFile(ctx context.Context, it channel.Item) ([]byte, error) {
	if it.File == nil {
		return nil, fmt.Errorf("%s: %w: not a file item", it.ID, channel.ErrNoItem)
	}
	data, err := c.get(ctx, inboxPath(it.ID, "file"))
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	if got := "sha256:" + hex.EncodeToString(sum[:]); got != it.File.SHA256 {
		return nil, fmt.Errorf("%s (%s): %w: got %s, recorded %s", it.ID, it.File.Name, ErrFileDigest, got, it.File.SHA256)
	}
	return data, nil
}

// FindInboxItem reads the operator's channel page by page for item id.
func (c *Client) FindInboxItem(ctx context.Context, id string) (channel.Item, error) {
	if _, err := channel.ParseItemID(id); err != nil {
		return channel.Item{}, err
	}
	after := ""
	for {
		page, err := c.Inbox(ctx, after, 500)
		if err != nil {
			return channel.Item{}, err
		}
		for _, it := range page.Items {
			if it.ID == id {
				return it, nil
			}
		}
		if after = page.Next; after == "" {
			return channel.Item{}, fmt.Errorf("%s: %w", id, channel.ErrNoItem)
		}
	}
}

// SaveInboxFile saves file item id, checked against its recorded sha256,
// to a new file at path (0600; an existing file is never overwritten, so
// a persona's file name cannot replace the operator's files) and returns
// the item.
func (c *Client) SaveInboxFile(ctx context.Context, id, path string) (channel.Item, error) {
	it, err := c.FindInboxItem(ctx, id)
	if err != nil {
		return it, err
	}
	data, err := c.InboxFile(ctx, it)
	if err != nil {
		return it, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return it, fmt.Errorf("save %s: %w (a new file only; nothing is overwritten)", it.ID, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return it, fmt.Errorf("save %s to %s: %w", it.ID, path, err)
	}
	if err := f.Close(); err != nil {
		return it, fmt.Errorf("save %s to %s: %w", it.ID, path, err)
	}
	return it, nil
}
