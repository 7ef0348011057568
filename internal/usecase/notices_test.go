package usecase

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/channel"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/quota"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/tasks/board"
	"github.com/virgo-hub/virgo-tui/internal/tools"
)

// inboxOf is every message waiting in p's seat's inbox.
func inboxOf(t *testing.T, in *installation, p registry.Persona) []coord.Message {
	t.Helper()
	page, err := in.cases.Inbox(context.Background(), p, "", 0)
	mustNil(t, err)
	return page.Items
}

// lastAbout is the last message of p's inbox, which must tell of about.
func lastAbout(t *testing.T, in *installation, p registry.Persona, about coord.About) coord.Message {
	t.Helper()
	ms := inboxOf(t, in, p)
	if len(ms) == 0 {
		t.Fatalf("%s's inbox is empty, want a message about %+v", p.Address, about)
	}
	m := ms[len(ms)-1]
	if m.About == nil || *m.About != about {
		t.Fatalf("%s's last message is about %+v, want %+v (%+v)", p.Address, m.About, about, m)
	}
	return m
}

// "Resident personas exchange coordination messages, assign and report
// tasks, raise and resolve decisions" (virgo-persona-paths.txt): each
// record's change that another must act on arrives in that one's inbox,
// naming the record, with the spec's "delivery envelope containing
// registry-derived sender project, agent, peer id, and instance/fence
// provenance" — once, however often the call is retried.
func TestWorkArrivesAsMessages(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	leadP, lead := active(t, in, "work/core/lead", "Spica")
	deputy, dep := active(t, in, "work/core/deputy", "Zaniah")
	fence, err := in.cases.ClaimFence(ctx, leadP)
	mustNil(t, err)
	lead.Fence = fence
	claimed := in.clk.Now().UTC()

	assign := `{"assignee":"work/core/deputy","title":"port the parser","brief":"make it total"}`
	call, err := callTool(t, in, lead, "assign_task", assign, "assign-1")
	mustNil(t, err)
	task := taskOf(t, call)
	m := lastAbout(t, in, deputy, coord.About{Kind: "task", ID: task.ID, Event: "assigned"})
	want := coord.Sender{Address: "work/core/lead", Project: "core", Name: "Spica", ID: leadP.ID, Generation: 1, InstanceSince: &claimed}
	if m.From.Address != want.Address || m.From.Project != want.Project || m.From.Name != want.Name || m.From.ID != want.ID ||
		m.From.Generation != 1 || m.From.InstanceSince == nil || !m.From.InstanceSince.Equal(claimed) {
		t.Fatalf("the envelope %+v, want %+v", m.From, want)
	}
	if !strings.Contains(m.Body, task.ID) || !strings.Contains(m.Body, "port the parser") {
		t.Fatalf("the message does not name the task: %q", m.Body)
	}
	_, err = callTool(t, in, lead, "assign_task", assign, "assign-1")
	mustNil(t, err)
	if n := len(inboxOf(t, in, deputy)); n != 1 {
		t.Fatalf("a retried assignment: %d messages, want 1", n)
	}

	_, err = callTool(t, in, dep, "report_task", `{"task":"`+task.ID+`","progress":"half","state":"in-progress"}`, "rep-1")
	mustNil(t, err)
	m = lastAbout(t, in, leadP, coord.About{Kind: "task", ID: task.ID, Event: "reported"})
	if m.From.Address != "work/core/deputy" || m.From.InstanceSince != nil || m.Subject != "task reported: in-progress" {
		t.Fatalf("the report's message %+v (a deputy without a fence has no instance provenance)", m)
	}

	raise, err := callTool(t, in, dep, "raise_decision", `{"question":"Which parser?","options":["hand-written","generated"]}`, "dec-1")
	mustNil(t, err)
	var d struct{ ID string }
	mustNil(t, json.Unmarshal(raise.Result, &d))
	lastAbout(t, in, leadP, coord.About{Kind: "decision", ID: d.ID, Event: "raised"})
	res, err := callTool(t, in, lead, "resolve_decision", `{"decision":"`+d.ID+`","choice":"generated"}`, "res-1")
	mustNil(t, err)
	if res.Status != tools.ToolDone {
		t.Fatalf("resolve: %+v", res)
	}
	m = lastAbout(t, in, deputy, coord.About{Kind: "decision", ID: d.ID, Event: "resolved"})
	if !strings.Contains(m.Body, "generated") {
		t.Fatalf("the resolution's message does not say the choice: %q", m.Body)
	}
	// A lead raising a decision resolves it itself: nobody is told.
	before := len(inboxOf(t, in, leadP))
	_, err = callTool(t, in, lead, "raise_decision", `{"question":"Release?","options":["now","later"]}`, "dec-2")
	mustNil(t, err)
	if n := len(inboxOf(t, in, leadP)); n != before {
		t.Fatalf("a lead's own decision told its own seat (%d messages, was %d)", n, before)
	}
}

// A notice is part of its record's transaction: when it cannot be
// delivered (the recipient's inbox over its byte quota) the record's change
// is refused with it, and nothing is recorded that its party was not told.
func TestWorkNoticeRefusedRefusesTheRecord(t *testing.T) {
	in := newInstallation(t)
	in.cases = New(Config{Store: in.st, Registry: in.reg, Queue: in.queue, Now: in.clk.Now, Quotas: quota.Limits{InboxBytes: 64}})
	_, lead := active(t, in, "work/core/lead", "Spica")
	deputy, _ := active(t, in, "work/core/deputy", "Zaniah")
	_, err := callTool(t, in, lead, "send_broker_message", `{"to":"work/core/deputy","body":"`+strings.Repeat("x", 60)+`"}`, "")
	mustNil(t, err)
	_, err = callTool(t, in, lead, "assign_task", `{"assignee":"work/core/deputy","title":"t","brief":"b"}`, "assign-1")
	if !errors.Is(err, quota.ErrExceeded) {
		t.Fatalf("an assignment its deputy cannot be told of: %v, want %v", err, quota.ErrExceeded)
	}
	set, err := board.Assigned(context.Background(), in.st, deputy.ID)
	mustNil(t, err)
	if len(set) != 0 {
		t.Fatalf("the refused assignment recorded tasks %v", set)
	}
}

// The human's answer comes back: a reaction to a persona's item arrives in
// the persona's inbox, from the human, naming the item; a reply already
// did, and now names what it answers.
func TestHumanAnswersArriveAsMessages(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	secP, sec := active(t, in, "root/secretary", "Porrima")
	call, err := callTool(t, in, sec, "send_human_message", `{"text":"ship v1.4?"}`, "")
	mustNil(t, err)
	var it struct{ ID string }
	mustNil(t, json.Unmarshal(call.Result, &it))
	o, err := in.cases.ReactAsHuman(ctx, henry, it.ID, "approve", "r-1")
	mustNil(t, err)
	if !o.Applied {
		t.Fatalf("reaction %+v", o)
	}
	m := lastAbout(t, in, secP, coord.About{Kind: "item", ID: it.ID, Event: "reaction"})
	if !m.From.Human() || m.From.Address != "human:henry" || !strings.Contains(m.Body, "approve") {
		t.Fatalf("the reaction's message %+v", m)
	}
	if _, err := in.cases.ReactAsHuman(ctx, henry, it.ID, "approve", "r-1"); err != nil {
		t.Fatal(err)
	}
	if n := len(inboxOf(t, in, secP)); n != 1 {
		t.Fatalf("a retried reaction: %d messages, want 1", n)
	}
	_, err = in.cases.ReplyAsHuman(ctx, Key{}, henry, it.ID, "yes, ship it")
	mustNil(t, err)
	lastAbout(t, in, secP, coord.About{Kind: "item", ID: it.ID, Event: "reply"})

	// A card's actions are a question: the answer is recorded once and
	// comes back; another answer, or one the card does not offer, is
	// refused by name.
	call, err = callTool(t, in, sec, "send_human_card", `{"title":"Deploy v1.4?","actions":["ship","hold"]}`, "")
	mustNil(t, err)
	var card struct{ ID string }
	mustNil(t, json.Unmarshal(call.Result, &card))
	if _, err := in.cases.AnswerCard(ctx, henry, card.ID, "maybe"); !errors.Is(err, channel.ErrNoAction) {
		t.Fatalf("an answer the card does not offer: %v", err)
	}
	answered, err := in.cases.AnswerCard(ctx, henry, card.ID, "ship")
	mustNil(t, err)
	if answered.Answer == nil || answered.Answer.Action != "ship" || answered.Answer.By != "human:henry" {
		t.Fatalf("the answered card %+v", answered)
	}
	m = lastAbout(t, in, secP, coord.About{Kind: "item", ID: card.ID, Event: "answer"})
	if !strings.Contains(m.Body, "ship") || m.Subject != "answer: ship" {
		t.Fatalf("the answer's message %+v", m)
	}
	before := len(inboxOf(t, in, secP))
	if _, err := in.cases.AnswerCard(ctx, henry, card.ID, "ship"); err != nil {
		t.Fatalf("the same answer again: %v", err)
	}
	if _, err := in.cases.AnswerCard(ctx, henry, card.ID, "hold"); !errors.Is(err, channel.ErrAnswered) {
		t.Fatalf("another answer: %v, want %v", err, channel.ErrAnswered)
	}
	if n := len(inboxOf(t, in, secP)); n != before {
		t.Fatalf("a repeated answer told the persona again (%d messages, was %d)", n, before)
	}
}
