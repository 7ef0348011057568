package usecase

import (
	"context"

	"github.com/virgo-hub/virgo-tui/internal/channel"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// The executors of the coordination and human-surface tools (rows of the
// executor table). Each plans its writes with the calling instance's
// admission and fence, for CallTool to commit with the call's decision and
// audit entry: a persona writes to its human's channel only through these
// calls, never past its stamp.

// instance is the calling runtime instance of a call.
func (c Call) instance() Instance { return Instance{Persona: c.Persona, Fence: c.Fence} }

// sendBrokerMessage is send_broker_message.
func sendBrokerMessage(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	var d coord.Draft
	if err := c.Args.Decode(&d); err != nil {
		return nil, store.Plan{}, err
	}
	addr, err := registry.ParseAddress(d.To)
	if err != nil {
		return nil, store.Plan{}, err
	}
	d.To = addr.String()
	return u.planSendMessage(ctx, c.instance(), d)
}

// listCoordinationMessages is list_coordination_messages: a page of the
// seat's inbox. Acked messages leave the inbox, so state "all" lists
// what "unacked" does.
func listCoordinationMessages(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	limit, _ := c.Args.Int("limit")
	page, err := u.Inbox(ctx, c.Persona, c.Args.Str("after"), int(limit))
	return page, store.Plan{}, err
}

// ackCoordinationMessage is ack_coordination_message.
func ackCoordinationMessage(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	return u.planAckMessage(ctx, c.instance(), c.Args.Str("message"))
}

// postDraft plans a persona's draft to its bound human.
func postDraft(ctx context.Context, u *Cases, c Call, d channel.Draft) (any, store.Plan, error) {
	return u.planPost(ctx, c.instance(), draftItem(c.Persona, d), nil)
}

// sendHumanMessage is send_human_message.
func sendHumanMessage(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	return postDraft(ctx, u, c, channel.Draft{Kind: channel.KindMessage, Text: c.Args.Str("text"), Thread: c.Args.Str("thread")})
}

// replyHumanMessage is reply_human_message: an answer to the human's item.
func replyHumanMessage(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	return postDraft(ctx, u, c, channel.Draft{Kind: channel.KindMessage, Text: c.Args.Str("text"), ReplyTo: c.Args.Str("message")})
}

// sendHumanCard is send_human_card.
func sendHumanCard(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	return postDraft(ctx, u, c, channel.Draft{Kind: channel.KindCard, Title: c.Args.Str("title"), Text: c.Args.Str("body"),
		Actions: c.Args.Strings("actions")})
}

// sendHumanTodo is send_human_todo.
func sendHumanTodo(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	return postDraft(ctx, u, c, channel.Draft{Kind: channel.KindTodo, Title: c.Args.Str("title"), Todo: c.Args.Strings("items")})
}

// sendHumanFile is send_human_file: the file read from the persona's own
// workspace, its bytes kept with the item.
func sendHumanFile(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	it, data, err := u.fileItem(c.Persona, c.Args.Str("path"), c.Args.Str("caption"))
	if err != nil {
		return nil, store.Plan{}, err
	}
	return u.planPost(ctx, c.instance(), it, data)
}

// ackHumanMessage is ack_human_message.
func ackHumanMessage(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	return u.planAckFromPersona(ctx, c.instance(), c.Args.Str("message"))
}

// startTyping is start_typing.
func startTyping(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	return u.planTyping(ctx, c.instance(), c.Args.Str("thread"), true)
}

// stopTyping is stop_typing.
func stopTyping(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	return u.planTyping(ctx, c.instance(), c.Args.Str("thread"), false)
}

// listReactionIDs is list_reaction_ids: the channel's catalogue.
func listReactionIDs(context.Context, *Cases, Call) (any, store.Plan, error) {
	return map[string][]string{"reactions": channel.ReactionIDs}, store.Plan{}, nil
}

// applyHumanReaction is apply_human_reaction under the call's correlation
// id: the definitive outcome, recorded with the reaction.
func applyHumanReaction(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	return u.planReactAsPersona(ctx, c.instance(), c.Args.Str("message"), c.Args.Str("reaction"), c.CorrelationID)
}

// getHumanSurfaceStatus is get_human_surface_status.
func getHumanSurfaceStatus(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	st, err := u.HumanSurfaceStatus(ctx, c.Persona)
	return st, store.Plan{}, err
}
