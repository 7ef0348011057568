package usecase

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/coord/switchboard"
	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/quota"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// activePersona registers a generation at addr and approves its activation.
func activePersona(t testing.TB, in *installation, addr, name string) registry.Persona {
	t.Helper()
	ctx := context.Background()
	res, err := in.cases.Register(ctx, Key{}, Registration{Registration: registry.Registration{Address: addr, Name: name, Human: "human:henry"}})
	mustNil(t, err)
	_, err = in.cases.Decide(ctx, Key{}, henry, res.Confirmation.ID, true, confirm.RememberNone, "")
	mustNil(t, err)
	p, err := in.reg.Get(ctx, res.Persona.ID)
	mustNil(t, err)
	return p
}

func inboxIDs(t testing.TB, in *installation, p registry.Persona) []string {
	t.Helper()
	page, err := in.cases.Inbox(context.Background(), p, "", paging.MaxLimit)
	mustNil(t, err)
	ids := make([]string, 0, len(page.Items))
	for _, m := range page.Items {
		ids = append(ids, m.ID+":"+m.Body)
	}
	return ids
}

// A message waits in the seat's inbox, delivered on every read, until it
// is acked; acks are idempotent; the envelope names the sender as the
// registry has it.
func TestMessageIsDeliveredUntilAckedAndAcksAreIdempotent(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	lead := activePersona(t, in, "work/core/lead", "Spica")
	deputy := activePersona(t, in, "work/core/deputy", "Zaniah")
	m, err := in.cases.sendMessage(ctx, Key{}, Instance{Persona: lead}, coord.Draft{To: "work/core/deputy", Subject: "review", Body: "please review core#12"})
	mustNil(t, err)
	if m.ID != "m-1.work.core.deputy" || m.To != "work/core/deputy" || m.From != (coord.Sender{Address: lead.Address, Project: "core", Name: "Spica", ID: lead.ID, Generation: 1}) {
		t.Fatalf("sent %+v", m)
	}
	for range 2 { // at least once: every read delivers it again until acked
		if got := inboxIDs(t, in, deputy); fmt.Sprint(got) != "[m-1.work.core.deputy:please review core#12]" {
			t.Fatalf("deputy's inbox: %v", got)
		}
	}
	ack, err := in.cases.ackMessage(ctx, Instance{Persona: deputy}, "m-1.work.core.deputy")
	mustNil(t, err)
	if ack != (coord.Ack{ID: "m-1.work.core.deputy"}) {
		t.Fatalf("first ack: %+v", ack)
	}
	if got := inboxIDs(t, in, deputy); len(got) != 0 {
		t.Fatalf("inbox after the ack: %v", got)
	}
	rev, _ := in.st.Rev(ctx)
	ack, err = in.cases.ackMessage(ctx, Instance{Persona: deputy}, "m-1.work.core.deputy")
	mustNil(t, err)
	if after, _ := in.st.Rev(ctx); ack != (coord.Ack{ID: "m-1.work.core.deputy", Repeat: true}) || after != rev {
		t.Fatalf("repeated ack: %+v, revision %d → %d; want a repeat that writes nothing", ack, rev, after)
	}
	if _, err := in.cases.ackMessage(ctx, Instance{Persona: deputy}, "m-2.work.core.deputy"); !errors.Is(err, coord.ErrNoMessage) {
		t.Fatalf("acking a message never sent: %v, want ErrNoMessage", err)
	}
	for _, id := range []string{"", "m-0.work.core.deputy", "m-01.work.core.deputy", "m-x.work.core.deputy", "1", "m-1", "m-1.", "m-1/../2", "m-1.work/core/deputy", "m-18446744073709551616.work.core.deputy"} {
		if _, err := in.cases.ackMessage(ctx, Instance{Persona: deputy}, id); !errors.Is(err, coord.ErrBadMessageID) {
			t.Fatalf("acking %q: %v, want ErrBadMessageID", id, err)
		}
	}
	// The lead's own inbox holds nothing: a message reaches its seat only.
	if got := inboxIDs(t, in, lead); len(got) != 0 {
		t.Fatalf("lead's inbox: %v", got)
	}
}

// Admission on both ends, and text no inbox holds.
func TestSendIsAdmittedOnBothEnds(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	lead := activePersona(t, in, "work/core/lead", "Spica")
	if _, err := in.cases.sendMessage(ctx, Key{}, Instance{Persona: lead}, coord.Draft{To: "work/web/lead", Subject: "", Body: "hello"}); !errors.Is(err, registry.ErrNoActiveHolder) {
		t.Fatalf("to a seat never granted: %v, want ErrNoActiveHolder", err)
	}
	if _, err := in.cases.sendMessage(ctx, Key{}, Instance{Persona: lead}, coord.Draft{To: "work/lead", Subject: "", Body: "hello"}); !errors.Is(err, registry.ErrInvalidAddress) {
		t.Fatalf("to an invalid address: %v, want ErrInvalidAddress", err)
	}
	// A generation still pending holds its seat but not actively.
	_, err := in.cases.Register(ctx, Key{}, Registration{Registration: registry.Registration{Address: "work/core/deputy", Name: "Zaniah", Human: "human:henry"}})
	mustNil(t, err)
	if _, err := in.cases.sendMessage(ctx, Key{}, Instance{Persona: lead}, coord.Draft{To: "work/core/deputy", Subject: "", Body: "hello"}); !errors.Is(err, registry.ErrNoActiveHolder) {
		t.Fatalf("to a pending generation: %v, want ErrNoActiveHolder", err)
	}
	sec := activePersona(t, in, "work/secretary", "Porrima")
	for _, body := range []string{"", "  \n", "bell\a", "\x1b[2Jwipe", "rtl\u202eevil", string(make([]byte, coord.MaxBody+1))} {
		if _, err := in.cases.sendMessage(ctx, Key{}, Instance{Persona: lead}, coord.Draft{To: sec.Address, Subject: "", Body: body}); !errors.Is(err, coord.ErrBadMessage) {
			t.Fatalf("body %q: %v, want ErrBadMessage", body, err)
		}
	}
	if _, err := in.cases.sendMessage(ctx, Key{}, Instance{Persona: lead}, coord.Draft{To: sec.Address, Subject: "two\nlines", Body: "body"}); !errors.Is(err, coord.ErrBadMessage) {
		t.Fatalf("a subject of two lines: %v, want ErrBadMessage", err)
	}
	if _, err := in.cases.sendMessage(ctx, Key{}, Instance{Persona: lead}, coord.Draft{To: sec.Address, Body: "re", ReplyTo: "../m-1"}); !errors.Is(err, coord.ErrBadMessage) {
		t.Fatalf("a reply to a malformed id: %v, want ErrBadMessage", err)
	}
	if m, err := in.cases.sendMessage(ctx, Key{}, Instance{Persona: lead}, coord.Draft{To: sec.Address, Body: "re", ReplyTo: "m-7.work.core.lead"}); err != nil || m.ReplyTo != "m-7.work.core.lead" {
		t.Fatalf("a reply: %+v, %v", m, err)
	}
	// The sender's end: a retired sender sends nothing.
	_, err = in.reg.Retire(ctx, lead.ID, "moved on")
	mustNil(t, err)
	if _, err := in.cases.sendMessage(ctx, Key{}, Instance{Persona: lead}, coord.Draft{To: sec.Address, Subject: "", Body: "hello"}); !errors.Is(err, ErrNotHolder) {
		t.Fatalf("from a retired sender: %v, want ErrNotHolder", err)
	}
}

// Two instances of one generation: the newer fences the older out — its
// acks and sends are refused with ErrFenced, and so is a request with no
// fence at all once one is claimed; the newer one acts.
func TestNewerInstanceFencesTheOlderOut(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	lead := activePersona(t, in, "work/core/lead", "Spica")
	deputy := activePersona(t, in, "work/core/deputy", "Zaniah")
	// Before any claim, an unfenced runtime acts.
	mustNil(t, in.cases.CheckFence(ctx, deputy.ID, coord.NoFence))
	older, err := in.cases.ClaimFence(ctx, deputy)
	mustNil(t, err)
	newer, err := in.cases.ClaimFence(ctx, deputy)
	mustNil(t, err)
	if newer <= older {
		t.Fatalf("fences %d then %d: a fence only grows", older, newer)
	}
	for range 2 {
		_, err := in.cases.sendMessage(ctx, Key{}, Instance{Persona: lead}, coord.Draft{To: deputy.Address, Subject: "", Body: "task"})
		mustNil(t, err)
	}
	stale, fresh := Instance{Persona: deputy, Fence: older}, Instance{Persona: deputy, Fence: newer}
	if _, err := in.cases.ackMessage(ctx, stale, "m-1.work.core.deputy"); !errors.Is(err, coord.ErrFenced) {
		t.Fatalf("the older instance's ack: %v, want ErrFenced", err)
	}
	if _, err := in.cases.sendMessage(ctx, Key{}, stale, coord.Draft{To: lead.Address, Subject: "", Body: "report"}); !errors.Is(err, coord.ErrFenced) {
		t.Fatalf("the older instance's send: %v, want ErrFenced", err)
	}
	if err := in.cases.CheckFence(ctx, deputy.ID, older); !errors.Is(err, coord.ErrFenced) {
		t.Fatalf("the older instance's beat: %v, want ErrFenced", err)
	}
	if _, err := in.cases.ackMessage(ctx, Instance{Persona: deputy}, "m-1.work.core.deputy"); !errors.Is(err, coord.ErrFenced) {
		t.Fatalf("an ack with no fence once one is claimed: %v, want ErrFenced", err)
	}
	if _, err := in.cases.ackMessage(ctx, Instance{Persona: deputy, Fence: newer + 1}, "m-1"); !errors.Is(err, coord.ErrFenced) {
		t.Fatalf("an ack with a fence never claimed: %v, want ErrFenced", err)
	}
	if got := inboxIDs(t, in, deputy); fmt.Sprint(got) != "[m-1.work.core.deputy:task m-2.work.core.deputy:task]" {
		t.Fatalf("the refused acks acked something: %v", got)
	}
	_, err = in.cases.ackMessage(ctx, fresh, "m-1.work.core.deputy")
	mustNil(t, err)
	_, err = in.cases.sendMessage(ctx, Key{}, fresh, coord.Draft{To: lead.Address, Subject: "", Body: "report"})
	mustNil(t, err)
	mustNil(t, in.cases.CheckFence(ctx, deputy.ID, newer))
	// The fence never appears in what the recipient reads: the instance
	// is named by when it claimed its fence.
	at := in.clk.Now().UTC()
	if page, _ := in.cases.Inbox(ctx, lead, "", 10); len(page.Items) != 1 || fmt.Sprintf("%+v", page.Items[0].From) != fmt.Sprintf("%+v", coord.Sender{Address: deputy.Address, Project: "core", Name: deputy.Name, ID: deputy.ID, Generation: 1, InstanceSince: &at}) {
		t.Fatalf("lead's inbox %+v", page)
	}
}

// A message in flight across a retirement and a regrant reaches the seat's
// new generation only: the retired generation reads and acks nothing more,
// a send while the seat is empty is refused, and what it had not acked
// waits for the next holder.
func TestMessageAcrossRetirementReachesTheNextGenerationOnly(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	lead := activePersona(t, in, "work/core/lead", "Spica")
	first := activePersona(t, in, "work/core/deputy", "Zaniah")
	_, err := in.cases.sendMessage(ctx, Key{}, Instance{Persona: lead}, coord.Draft{To: first.Address, Subject: "", Body: "before"})
	mustNil(t, err)
	_, err = in.reg.Retire(ctx, first.ID, "rotated")
	mustNil(t, err)
	if _, err := in.cases.sendMessage(ctx, Key{}, Instance{Persona: lead}, coord.Draft{To: first.Address, Subject: "", Body: "while empty"}); !errors.Is(err, registry.ErrNoActiveHolder) {
		t.Fatalf("a send to the emptied seat: %v, want ErrNoActiveHolder", err)
	}
	if _, err := in.cases.Inbox(ctx, first, "", 10); !errors.Is(err, ErrNotHolder) {
		t.Fatalf("the retired generation's read: %v, want ErrNotHolder", err)
	}
	if _, err := in.cases.ackMessage(ctx, Instance{Persona: first}, "m-1.work.core.deputy"); !errors.Is(err, ErrNotHolder) {
		t.Fatalf("the retired generation's ack: %v, want ErrNotHolder", err)
	}
	if _, err := in.cases.ClaimFence(ctx, first); !errors.Is(err, ErrNotHolder) {
		t.Fatalf("the retired generation's fence claim: %v, want ErrNotHolder", err)
	}
	second := activePersona(t, in, "work/core/deputy", "Tania")
	_, err = in.cases.sendMessage(ctx, Key{}, Instance{Persona: lead}, coord.Draft{To: second.Address, Subject: "", Body: "after"})
	mustNil(t, err)
	if got := inboxIDs(t, in, second); fmt.Sprint(got) != "[m-1.work.core.deputy:before m-2.work.core.deputy:after]" {
		t.Fatalf("the new generation's inbox: %v", got)
	}
	if _, err := in.cases.Inbox(ctx, first, "", 10); !errors.Is(err, ErrNotHolder) {
		t.Fatalf("the retired generation reads its successor's inbox: %v", err)
	}
}

// The send's transaction is guarded on the recipient's seat: a retirement
// committed between the admission read and the commit makes the commit
// conflict, so the use case decides again (and refuses).
func TestSendPlannedBeforeARetirementDoesNotCommitAfterIt(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	activePersona(t, in, "work/core/lead", "Spica")
	deputy := activePersona(t, in, "work/core/deputy", "Zaniah")
	_, seat, err := in.reg.ActiveHolder(ctx, deputy.Address)
	mustNil(t, err)
	_, send, err := switchboard.New(in.st, nil, quota.Limits{}).PlanSend(ctx, coord.Message{To: deputy.Address, Body: "late"})
	mustNil(t, err)
	send.Conds = append(send.Conds, seat)
	_, err = in.reg.Retire(ctx, deputy.ID, "rotated")
	mustNil(t, err)
	if _, err := send.Commit(ctx, in.st); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a send planned before the retirement committed after it: %v, want ErrConflict", err)
	}
}

// An inbox reads page by page with continuation tokens that only name a
// place in it.
func TestInboxPagesWithContinuation(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	lead := activePersona(t, in, "work/core/lead", "Spica")
	deputy := activePersona(t, in, "work/core/deputy", "Zaniah")
	for i := range 250 {
		_, err := in.cases.sendMessage(ctx, Key{}, Instance{Persona: lead}, coord.Draft{To: deputy.Address, Subject: "", Body: fmt.Sprint(i)})
		mustNil(t, err)
	}
	var sizes []int
	next, seen := "", 0
	for {
		page, err := in.cases.Inbox(ctx, deputy, next, 100)
		mustNil(t, err)
		for _, m := range page.Items {
			if m.Body != fmt.Sprint(seen) {
				t.Fatalf("message %d of the walk is %q", seen, m.Body)
			}
			seen++
		}
		sizes = append(sizes, len(page.Items))
		if next = page.Next; next == "" {
			break
		}
	}
	if fmt.Sprint(sizes) != "[100 100 50]" {
		t.Fatalf("page sizes %v", sizes)
	}
	for _, tok := range []string{"x!", "../", strings.Repeat("A", 600)} {
		if _, err := in.cases.Inbox(ctx, deputy, tok, 10); !errors.Is(err, paging.ErrBadToken) {
			t.Fatalf("token %q: %v, want ErrBadToken", tok, err)
		}
	}
	// A well-formed token naming a key of another list reads only this
	// inbox: the store range never leaves its prefix.
	escape := base64.RawURLEncoding.EncodeToString([]byte("/../../seat/work/core/lead"))
	if page, err := in.cases.Inbox(ctx, deputy, escape, 10); err == nil {
		for _, m := range page.Items {
			if m.To != deputy.Address {
				t.Fatalf("a forged token read %+v", m)
			}
		}
	}
}

// A send repeated with its Idempotency-Key admits one message.
func TestRepeatedSendAdmitsOneMessage(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	lead := activePersona(t, in, "work/core/lead", "Spica")
	deputy := activePersona(t, in, "work/core/deputy", "Zaniah")
	k := mustKey(t, lead.Address, "send-1", "POST /v1/messages", "hello")
	a, err := in.cases.sendMessage(ctx, k, Instance{Persona: lead}, coord.Draft{To: deputy.Address, Subject: "", Body: "hello"})
	mustNil(t, err)
	b, err := in.cases.sendMessage(ctx, k, Instance{Persona: lead}, coord.Draft{To: deputy.Address, Subject: "", Body: "hello"})
	mustNil(t, err)
	if a != b || len(inboxIDs(t, in, deputy)) != 1 {
		t.Fatalf("repeat answered %+v (first %+v), inbox %v", b, a, inboxIDs(t, in, deputy))
	}
}

// useMessageTest names the test helpers' use case (no failpoint names it).
const useMessageTest = "message-test"

// sendMessage commits planSendMessage on its own, as the send_broker_message
// executor does within its tool call's transaction, so the coordination
// rules (both ends guarded, fences, retirement) are tested without a
// stamp's verdict in front of them. With a Key, a repeat is answered with
// the first one's message and no second message is admitted.
func (u *Cases) sendMessage(ctx context.Context, k Key, from Instance, d coord.Draft) (coord.Message, error) {
	addr, err := registry.ParseAddress(d.To)
	if err != nil {
		return coord.Message{}, err
	}
	d.To = addr.String()
	var out coord.Message
	err = u.commit(ctx, useMessageTest, "send a message to "+d.To, func() (store.Plan, error) {
		if ok, err := u.replayed(ctx, k, &out); ok || err != nil {
			return store.Plan{}, err
		}
		var plan store.Plan
		var err error
		if out, plan, err = u.planSendMessage(ctx, from, d); err != nil {
			return store.Plan{}, err
		}
		rec, err := u.record(k, out)
		plan.Join(rec)
		return plan, err
	})
	if err != nil {
		return coord.Message{}, err
	}
	return out, nil
}

// ackMessage commits planAckMessage on its own, as the
// ack_coordination_message executor does (see sendMessage).
func (u *Cases) ackMessage(ctx context.Context, in Instance, id string) (coord.Ack, error) {
	var out coord.Ack
	err := u.commit(ctx, useMessageTest, "ack "+in.Persona.Address+" message", func() (store.Plan, error) {
		var plan store.Plan
		var err error
		out, plan, err = u.planAckMessage(ctx, in, id)
		return plan, err
	})
	return out, err
}
