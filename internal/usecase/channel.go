package usecase

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path"

	"github.com/virgo-hub/virgo-tui/internal/channel"
	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/workspace"
)

// sender is the registry's envelope of p (without its instance: see
// Cases.envelope).
func sender(p registry.Persona) coord.Sender {
	a, _ := registry.ParseAddress(p.Address) // a registered address parses
	return coord.Sender{Address: p.Address, Project: a.Project, Name: p.Name, ID: p.ID, Generation: p.Generation}
}

// humanSender is the envelope of a message the human sends (an answer
// from the human channel).
func humanSender(human confirm.Principal) coord.Sender {
	return coord.Sender{Address: human.String(), Name: human.Name}
}

// conversation checks that the human's item id belongs to p's conversation
// (p's seat, any generation) and returns it.
func (u *Cases) conversation(ctx context.Context, p registry.Persona, id string) (channel.Item, error) {
	it, _, err := u.human.Get(ctx, p.Human, id)
	if err != nil {
		return channel.Item{}, err
	}
	if it.Persona.Address != p.Address {
		return channel.Item{}, fmt.Errorf("%w: %s is not in %s's conversation", channel.ErrNoItem, id, p.Address)
	}
	return it, nil
}

// planPost plans one persona's item with its admission: a reply joins the
// thread of the human's item it answers, a message naming a thread joins
// that one.
func (u *Cases) planPost(ctx context.Context, in Instance, it channel.Item, data []byte) (channel.Item, store.Plan, error) {
	plan, err := u.admitted(ctx, in)
	if err != nil {
		return channel.Item{}, store.Plan{}, err
	}
	if it.ReplyTo != "" {
		to, err := u.conversation(ctx, in.Persona, it.ReplyTo)
		if err != nil {
			return channel.Item{}, store.Plan{}, err
		}
		if !to.FromHuman {
			return channel.Item{}, store.Plan{}, fmt.Errorf("%w: %s is the persona's own item; reply to the human's", channel.ErrWrongSide, it.ReplyTo)
		}
		it.Thread = to.Thread
	} else if it.Thread != "" {
		if _, err := u.conversation(ctx, in.Persona, it.Thread); err != nil {
			return channel.Item{}, store.Plan{}, err
		}
	}
	out, post, err := u.human.PlanPost(ctx, it, data)
	if err != nil {
		return channel.Item{}, store.Plan{}, err
	}
	plan.Join(post)
	return out, plan, nil
}

// draftItem is the item of a persona's draft to its bound human.
func draftItem(p registry.Persona, d channel.Draft) channel.Item {
	it := channel.Item{Human: p.Human, Persona: sender(p), Kind: d.Kind, Thread: d.Thread, ReplyTo: d.ReplyTo,
		Text: d.Text, Title: d.Title, Actions: d.Actions}
	for _, t := range d.Todo {
		it.Todo = append(it.Todo, channel.TodoItem{Text: t})
	}
	return it
}

// fileItem reads the file at rel of p's own workspace into a file item.
// The call was decided on the file rel resolved to (Cases.exported); the
// read opens exactly that file once (workspace.Root.Read: no link
// followed, never blocking, a regular file with one name) and the secret
// table judges it again, so a link swapped in between takes nothing out.
func (u *Cases) fileItem(p registry.Persona, rel, caption string) (channel.Item, []byte, error) {
	root, err := workspace.Open(workspace.HomeDir(u.home.Dir, p.Address), nil)
	if err != nil {
		return channel.Item{}, nil, err
	}
	defer root.Close()
	page, err := root.Read(rel, 0, channel.MaxFile)
	if err != nil {
		return channel.Item{}, nil, fmt.Errorf("send %s: %w", rel, err)
	}
	if page.Size > channel.MaxFile || !page.EOF {
		return channel.Item{}, nil, fmt.Errorf("%w: %s is %d bytes, over %d", channel.ErrFileTooLarge, page.Path, max(page.Size, page.NextOffset), channel.MaxFile)
	}
	sum := sha256.Sum256(page.Data)
	it := channel.Item{Human: p.Human, Persona: sender(p), Kind: channel.KindFile, Text: caption,
		File: &channel.File{Name: path.Base(page.Path), Size: int64(len(page.Data)), SHA256: "sha256:" + hex.EncodeToString(sum[:]), Path: page.Path}}
	return it, page.Data, nil
}

// planAckFromPersona plans the persona's ack of one of the human's items
// to its seat (ack_human_message): empty for a repeat.
func (u *Cases) planAckFromPersona(ctx context.Context, in Instance, id string) (channel.Item, store.Plan, error) {
	plan, err := u.admitted(ctx, in)
	if err != nil {
		return channel.Item{}, store.Plan{}, err
	}
	it, ack, err := u.human.PlanAck(ctx, in.Persona.Human, id, false, in.Persona.Address)
	if err != nil || ack.Empty() {
		return it, store.Plan{}, err
	}
	plan.Join(ack)
	return it, plan, nil
}

// AckFromHuman is the human's ack of a persona's item: one fewer unread.
func (u *Cases) AckFromHuman(ctx context.Context, human confirm.Principal, id string) (channel.Item, error) {
	var out channel.Item
	err := u.commit(ctx, UseAckHuman, "ack "+id, func() (store.Plan, error) {
		var plan store.Plan
		var err error
		if out, plan, err = u.human.PlanAck(ctx, human.String(), id, true, ""); err != nil {
			return store.Plan{}, err
		}
		err = u.joinHumanAudit(ctx, &plan, humanAct{Event: AuditInboxAck, Human: human, Persona: out.Persona.Address, Operation: "ack " + out.ID})
		return plan, err
	})
	return out, err
}

// TickTodo is the human ticking (or unticking) line index of a todo card.
func (u *Cases) TickTodo(ctx context.Context, human confirm.Principal, id string, index int, done bool) (channel.Item, error) {
	var out channel.Item
	err := u.commit(ctx, UseTickTodo, "tick "+id, func() (store.Plan, error) {
		var plan store.Plan
		var err error
		if out, plan, err = u.human.PlanTick(ctx, human.String(), id, index, done); err != nil {
			return store.Plan{}, err
		}
		err = u.joinHumanAudit(ctx, &plan, humanAct{Event: AuditInboxTick, Human: human, Persona: out.Persona.Address,
			Operation: fmt.Sprintf("tick %s line %d done=%t", out.ID, index, done)})
		return plan, err
	})
	return out, err
}

// AnswerCard records the human's answer to card id of their channel — one
// of its actions — and, in the same transaction, delivers it to the seat
// of the persona that sent the card as a coordination message naming the
// card (about: item, id, answer): a card's actions are a question, and the
// answer comes back. A repeated answer writes and tells nothing; another
// answer is channel.ErrAnswered.
func (u *Cases) AnswerCard(ctx context.Context, human confirm.Principal, id, action string) (channel.Item, error) {
	var out channel.Item
	err := u.commit(ctx, UseAnswerCard, "answer "+id, func() (store.Plan, error) {
		var plan store.Plan
		var err error
		if out, plan, err = u.human.PlanAnswer(ctx, human.String(), id, action); err != nil || plan.Empty() {
			return store.Plan{}, err
		}
		tell, err := u.planNotice(ctx, humanSender(human), notice{To: out.Persona.Address,
			About: coord.About{Kind: "item", ID: out.ID, Event: "answer"}, Subject: "answer: " + action,
			Body: fmt.Sprintf("%s answered your card %s (%s): %s", human, out.ID, out.Title, action)})
		if err != nil {
			return store.Plan{}, err
		}
		plan.Join(tell)
		err = u.joinHumanAudit(ctx, &plan, humanAct{Event: AuditInboxAnswer, Human: human, Persona: out.Persona.Address,
			Operation: "answer " + out.ID + " " + action})
		return plan, err
	})
	return out, err
}

// ReplyAsHuman is the human's reply to item id of its channel: an item
// from the human in the item's thread and, in the same transaction, a
// coordination message carrying it to the persona's seat (delivered until
// acked, like any message; its Item names the reply). The persona's seat
// must have an active holder.
func (u *Cases) ReplyAsHuman(ctx context.Context, k Key, human confirm.Principal, id, text string) (channel.Item, error) {
	var out channel.Item
	err := u.commit(ctx, UseReplyHuman, "reply to "+id, func() (store.Plan, error) {
		if ok, err := u.replayed(ctx, k, &out); ok || err != nil {
			return store.Plan{}, err
		}
		to, _, err := u.human.Get(ctx, human.String(), id)
		if err != nil {
			return store.Plan{}, err
		}
		if to.FromHuman {
			return store.Plan{}, fmt.Errorf("%w: %s is your own; reply to a persona's item", channel.ErrWrongSide, id)
		}
		holder, seat, err := u.reg.ActiveHolder(ctx, to.Persona.Address)
		if err != nil {
			return store.Plan{}, err
		}
		reply, plan, err := u.human.PlanPost(ctx, channel.Item{Human: human.String(), Persona: sender(holder), FromHuman: true,
			Kind: channel.KindMessage, Thread: to.Thread, ReplyTo: to.ID, Text: text}, nil)
		if err != nil {
			return store.Plan{}, err
		}
		plan.Conds = append(plan.Conds, seat)
		_, carry, err := u.coord.PlanSend(ctx, coord.Message{To: holder.Address, Subject: "reply to " + to.ID,
			Body: text, Item: reply.ID, From: humanSender(human), About: &coord.About{Kind: "item", ID: to.ID, Event: "reply"}})
		if err != nil {
			return store.Plan{}, err
		}
		plan.Join(carry)
		out = reply
		if err := u.joinHumanAudit(ctx, &plan, humanAct{Event: AuditInboxReply, Human: human, Persona: holder.Address,
			Operation: "reply " + reply.ID + " to " + to.ID}); err != nil {
			return store.Plan{}, err
		}
		rec, err := u.record(k, out)
		plan.Join(rec)
		return plan, err
	})
	if err != nil {
		return channel.Item{}, err
	}
	return out, nil
}

// reactionOutcome is the terminal outcome of reaction on item that the
// channel's rules refused, or false for an error that is not a rule's (a
// store fault): the outcome is then unknown, and not recorded.
func reactionOutcome(item, reaction string, err error) (confirm.Outcome, bool) {
	for _, rule := range []error{channel.ErrNoItem, channel.ErrUnknownReaction, channel.ErrBadItem, channel.ErrBadItemID, channel.ErrWrongSide} {
		if errors.Is(err, rule) {
			return confirm.NotApplied(item, reaction, err.Error()), true
		}
	}
	return confirm.Unknown, false
}

// planReaction plans requester's reaction on item under corr and its
// outcome as one transaction: a recorded terminal outcome of corr for this
// reaction is returned as it is (an empty plan), one for another reaction
// is confirm.ErrCorrelationReuse; otherwise react plans the reaction, and
// its outcome — applied, or not applied with the rule's reason — is
// recorded with it.
func (u *Cases) planReaction(ctx context.Context, requester confirm.Principal, corr, item, reaction string, react func() (store.Plan, error)) (confirm.Outcome, store.Plan, error) {
	if o, err := u.reactions.Get(ctx, requester, corr, item, reaction); err != nil || o.Known {
		return o, store.Plan{}, err
	}
	o := confirm.Applied(item, reaction)
	plan, err := react()
	if err != nil {
		var rule bool
		if o, rule = reactionOutcome(item, reaction, err); !rule {
			return confirm.Unknown, store.Plan{}, err
		}
		plan = store.Plan{}
	}
	o.At = u.now().UTC()
	rec, err := u.reactions.PlanOutcome(requester, corr, o)
	if err != nil {
		return confirm.Unknown, store.Plan{}, err
	}
	plan.Join(rec)
	return o, plan, nil
}

// planReactAsPersona plans the persona's reaction to an item of its
// conversation, with its admission (a fenced-out instance is refused,
// never recorded).
func (u *Cases) planReactAsPersona(ctx context.Context, in Instance, id, reaction, corr string) (confirm.Outcome, store.Plan, error) {
	admission, err := u.admitted(ctx, in)
	if err != nil {
		return confirm.Unknown, store.Plan{}, err
	}
	p := in.Persona
	o, plan, err := u.planReaction(ctx, confirm.PersonaPrincipal(p.Address), corr, id, reaction, func() (store.Plan, error) {
		if _, err := u.conversation(ctx, p, id); err != nil {
			return store.Plan{}, err
		}
		_, react, err := u.human.PlanReact(ctx, p.Human, id, reaction, p.Address)
		return react, err
	})
	if err != nil || plan.Empty() {
		return o, store.Plan{}, err
	}
	admission.Join(plan)
	return o, admission, nil
}

// ReactAsHuman applies the human's reaction to an item of their channel
// under correlation id corr: the answer is applied, or not applied with the
// reason, recorded in the same transaction as the reaction; a retry under
// corr returns that one terminal outcome and applies nothing again, and
// corr sent with another item or reaction is confirm.ErrCorrelationReuse. An
// error (a store fault) leaves the outcome unknown: retry under corr. A
// persona reacts through apply_human_reaction (planReactAsPersona).
func (u *Cases) ReactAsHuman(ctx context.Context, human confirm.Principal, id, reaction, corr string) (confirm.Outcome, error) {
	var out confirm.Outcome
	err := u.commit(ctx, UseReact, "react to "+id, func() (store.Plan, error) {
		var plan store.Plan
		var err error
		var item channel.Item
		out, plan, err = u.planReaction(ctx, human, corr, id, reaction, func() (store.Plan, error) {
			var react store.Plan
			var err error
			item, react, err = u.human.PlanReact(ctx, human.String(), id, reaction, human.String())
			return react, err
		})
		if err != nil {
			return store.Plan{}, err
		}
		act := humanAct{Event: AuditInboxReact, Human: human, CorrelationID: corr, Operation: "react", Reason: out.Reason}
		if out.Applied {
			act.Persona, act.Operation = item.Persona.Address, "react "+item.ID+" "+reaction
		}
		if out.Applied && !item.FromHuman && item.ID != "" {
			// The human's answer goes back to the persona that asked.
			tell, err := u.planNotice(ctx, humanSender(human), notice{To: item.Persona.Address,
				About: coord.About{Kind: "item", ID: item.ID, Event: "reaction"}, Subject: "reaction: " + reaction,
				Body: fmt.Sprintf("%s reacted %s to your item %s.", human, reaction, item.ID)})
			if err != nil {
				return store.Plan{}, err
			}
			plan.Join(tell)
		}
		err = u.joinHumanAudit(ctx, &plan, act)
		return plan, err
	})
	if err != nil {
		return confirm.Unknown, err
	}
	return out, nil
}

// planTyping plans showing (on) or clearing the persona's typing indicator
// in its human's channel (start_typing, stop_typing), with the instance's
// admission; it shows for channel.TypingFor unless renewed.
func (u *Cases) planTyping(ctx context.Context, in Instance, thread string, on bool) (channel.Typing, store.Plan, error) {
	plan, err := u.admitted(ctx, in)
	if err != nil {
		return channel.Typing{}, store.Plan{}, err
	}
	t, typing, err := u.human.PlanTyping(in.Persona.Human, sender(in.Persona), thread, on)
	plan.Join(typing)
	return t, plan, err
}

// SurfaceStatus is get_human_surface_status: the surface, the bound human
// and how many of the personas' items wait unread — no content.
type SurfaceStatus struct {
	Surface string `json:"surface"`
	Human   string `json:"human"`
	Unread  int    `json:"unread"`
}

// HumanSurfaceStatus answers get_human_surface_status for p.
func (u *Cases) HumanSurfaceStatus(ctx context.Context, p registry.Persona) (SurfaceStatus, error) {
	n, err := u.human.Unread(ctx, p.Human)
	return SurfaceStatus{Surface: channel.Surface, Human: p.Human, Unread: n}, err
}

// HumanStatus is the human's unread count and the typing indicators
// showing in their channel.
func (u *Cases) HumanStatus(ctx context.Context, human confirm.Principal) (int, []channel.Typing, error) {
	n, err := u.human.Unread(ctx, human.String())
	if err != nil {
		return 0, nil, err
	}
	ts, err := u.human.Typing(ctx, human.String())
	return n, ts, err
}

// HumanInbox is one page of human's channel, oldest first.
func (u *Cases) HumanInbox(ctx context.Context, human confirm.Principal, after string, limit int) (channel.Page, error) {
	return u.human.Inbox(ctx, human.String(), after, limit)
}

// HumanFile returns the bytes of file item id of human's channel. A file
// of secret or authority material (stored before sends were judged by the
// material table, or by a hub that did not judge them) is refused by the
// same table, so saving it never writes the material out.
func (u *Cases) HumanFile(ctx context.Context, human confirm.Principal, id string) (channel.Item, []byte, error) {
	it, _, err := u.human.Get(ctx, human.String(), id)
	if err != nil {
		return channel.Item{}, nil, err
	}
	if it.Kind != channel.KindFile || it.File == nil {
		return channel.Item{}, nil, fmt.Errorf("%w: %s is a %s, not a file", channel.ErrNoItem, id, it.Kind)
	}
	if d := confirm.Egress(it.File.Path); d.Verdict == confirm.Deny {
		return channel.Item{}, nil, fmt.Errorf("%s: %w: %s", id, confirm.ErrSecretMaterial, d)
	}
	data, err := u.human.FileData(ctx, human.String(), id)
	return it, data, err
}
