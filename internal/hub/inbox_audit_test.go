package hub

import (
	"context"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
)

// The human's reply, react, ack and tick in the inbox are "all
// live, all audited". Over the socket each act writes exactly one audit
// entry (listed by GET /v1/audit) naming the operator, the act and the
// item — never the text of the item or of the reply; an act that changes
// nothing (a repeated ack, a reaction retried under its correlation id)
// writes none.
func TestHumansInboxActsAreAuditedOnceEach(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	ctx := context.Background()
	sec := th.addPersona(t, "root/secretary", "Porrima")
	me := th.runtime(t, sec)
	msg := toolItem(t, me, "send_human_message", `{"text":"secret-body review done"}`)
	todo := toolItem(t, me, "send_human_todo", `{"title":"secret-title","items":["sign"]}`)

	henry := th.operator(t, "henry")
	before, err := henry.Audit(ctx, 0)
	mustNil(t, err)

	reply, err := henry.ReplyInbox(ctx, msg.ID, "secret-reply thanks")
	mustNil(t, err)
	_, err = henry.ReactInbox(ctx, msg.ID, "approve", "r-1")
	mustNil(t, err)
	_, err = henry.ReactInbox(ctx, msg.ID, "approve", "r-1") // a retry: the one outcome, no entry
	mustNil(t, err)
	no, err := henry.ReactInbox(ctx, "h-404", "approve", "r-2") // refused by rule: a terminal outcome, audited
	mustNil(t, err)
	_, err = henry.AckInbox(ctx, msg.ID)
	mustNil(t, err)
	_, err = henry.AckInbox(ctx, msg.ID) // acking again changes nothing
	mustNil(t, err)
	_, err = henry.TickInbox(ctx, todo.ID, 0, true)
	mustNil(t, err)

	all, err := henry.Audit(ctx, 0)
	mustNil(t, err)
	got := all[len(before):]
	want := []struct{ event, op, corr string }{
		{usecase.AuditInboxReply, "reply " + reply.ID + " to " + msg.ID, ""},
		{usecase.AuditInboxReact, "react " + msg.ID + " approve", "r-1"},
		{usecase.AuditInboxReact, "react", "r-2"},
		{usecase.AuditInboxAck, "ack " + msg.ID, ""},
		{usecase.AuditInboxTick, "tick " + todo.ID + " line 0 done=true", ""},
	}
	if len(got) != len(want) {
		t.Fatalf("%d audit entries for %d acts: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		e := got[i]
		if e.Event != w.event || e.Operation != w.op || e.CorrelationID != w.corr || e.Actor != (confirm.Principal{Kind: confirm.PrincipalHuman, Name: "henry"}) {
			t.Errorf("entry %d = %+v, want %s %q by human:henry", i, e, w.event, w.op)
		}
		if w.op != "react" && e.Persona != sec.Address {
			t.Errorf("entry %d names persona %q, want %s", i, e.Persona, sec.Address)
		}
		if line := strings.Join([]string{e.Operation, e.Reason}, " "); strings.Contains(line, "secret-") {
			t.Errorf("entry %d carries a body: %q", i, line)
		}
	}
	if got[2].Reason != no.Reason || got[2].Reason == "" {
		t.Errorf("the refused reaction's entry gives reason %q, the outcome %q", got[2].Reason, no.Reason)
	}
}
