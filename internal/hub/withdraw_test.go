package hub

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/confirm/queue"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// TestRetirementClosesWhatTheGenerationLeftOpen:
// approving a retirement withdraws that generation's pending requests
// (state withdrawn, audited, in the retirement's own transaction) and its
// pending activation if it was never active; deciding a withdrawn
// confirmation is refused naming its state.
func TestRetirementClosesWhatTheGenerationLeftOpen(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	ctx := context.Background()
	henry := th.operator(t, "henry")

	// An active generation with a pending request.
	lead := th.addPersona(t, "work/core/lead", "Spica")
	asked, err := th.runtime(t, lead).RequestConfirmation(ctx, deployOp("w-lead-1"))
	mustNil(t, err)
	if asked.Confirmation == nil || asked.Confirmation.State != confirm.StatePending {
		t.Fatalf("the lead's deploy is not pending: %+v", asked)
	}
	// Another persona's pending request is not the retired one's to close.
	other := th.addPersona(t, "work/web/lead", "Arcturus")
	kept, err := th.runtime(t, other).RequestConfirmation(ctx, deployOp("w-other-1"))
	mustNil(t, err)

	retirement, err := henry.RequestRetirement(ctx, lead.Address, "project closed")
	mustNil(t, err)
	decided, err := henry.Decide(ctx, retirement.Confirmation.ID, hubapi.DecideRequest{Approve: true})
	mustNil(t, err)

	c, err := henry.Confirmation(ctx, asked.Confirmation.ID)
	mustNil(t, err)
	if c.State != confirm.StateWithdrawn || c.Decision == nil || c.Decision.Decider.String() != "human:henry" {
		t.Fatalf("the retired lead's pending request after retirement: %s %+v", c.State, c.Decision)
	}
	// One transaction: the withdrawal, the retirement's decision and the
	// retired record carry the same store revision.
	wkv, err := th.hub.st.Get(ctx, queue.PrefixConfirmation+c.ID)
	mustNil(t, err)
	rkv, err := th.hub.st.Get(ctx, queue.PrefixConfirmation+decided.ID)
	mustNil(t, err)
	if wkv.ModRev != rkv.ModRev {
		t.Errorf("withdrawn at revision %d, retirement decided at %d: not one transaction", wkv.ModRev, rkv.ModRev)
	}
	if k, err := henry.Confirmation(ctx, kept.Confirmation.ID); err != nil || k.State != confirm.StatePending {
		t.Fatalf("another persona's request was touched: %v %v", k.State, err)
	}
	_, err = henry.Decide(ctx, c.ID, hubapi.DecideRequest{Approve: true})
	if ae := wantCode(t, err, "withdrawn"); !strings.Contains(ae.Msg, "is withdrawn") {
		t.Fatalf("refusal %q does not name the state", ae.Msg)
	}
	audit, err := henry.Audit(ctx, 0)
	mustNil(t, err)
	found := false
	for _, e := range audit {
		found = found || (e.Event == "withdrawn" && e.ConfirmationID == c.ID && e.Actor.String() == "human:henry")
	}
	if !found {
		t.Fatalf("no withdrawn audit entry for %s", c.ID)
	}
	// A pending request no longer counts as waiting.
	if pr, ok := th.hub.Presence().Get(lead.ID); ok && pr.Waiting != 0 {
		t.Errorf("the retired lead still waits on %d confirmations", pr.Waiting)
	}

	// A generation retired before it was ever active: its activation is
	// withdrawn with it.
	reg, err := henry.Register(ctx, hubapi.RegisterRequest{Address: "work/core/deputy", Name: "Vindemiatrix", Human: "human:henry"})
	mustNil(t, err)
	retirement, err = henry.RequestRetirement(ctx, reg.Persona.ID, "registered by mistake")
	mustNil(t, err)
	_, err = henry.Decide(ctx, retirement.Confirmation.ID, hubapi.DecideRequest{Approve: true})
	mustNil(t, err)
	act, err := henry.Confirmation(ctx, reg.Confirmation.ID)
	mustNil(t, err)
	if act.State != confirm.StateWithdrawn {
		t.Fatalf("the never-active generation's activation is %s, want withdrawn", act.State)
	}
	_, err = henry.Decide(ctx, act.ID, hubapi.DecideRequest{Approve: true})
	wantCode(t, err, "withdrawn")
	p, err := th.hub.Registry().Get(ctx, reg.Persona.ID)
	mustNil(t, err)
	if p.State != registry.StateRetired {
		t.Fatalf("the never-active generation is %s after its retirement, want retired", p.State)
	}
}

// A generation with as many pending requests as it may have (the
// pending_per_persona limit) is retired: more than one transaction can
// hold (store.MaxTxnOps), so the retirement's transaction withdraws what
// fits and follow-up transactions the rest — all of them withdrawn when
// the decision is answered, and what waited on the lead's seat is marked
// unroutable after them.
func TestRetirementWithdrawsMoreThanOneTransactionHolds(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	ctx := context.Background()
	henry := th.operator(t, "henry")
	lead := th.addPersona(t, "work/core/lead", "Spica")
	rt := th.runtime(t, lead)
	n := hubapi.LimitOf("pending_per_persona").Max - 1 // and the retirement
	if n*queue.WithdrawOps <= store.MaxTxnOps {
		t.Fatalf("%d pending requests fit one transaction; the test needs more", n)
	}
	ids := make([]string, n)
	for i := range n {
		op := deployOp(fmt.Sprintf("many-%d", i))
		op.Target = fmt.Sprintf("external:https://example.org/release/%d", i)
		asked, err := rt.RequestConfirmation(ctx, op)
		mustNil(t, err)
		ids[i] = asked.Confirmation.ID
	}
	// And what its deputy asked of it: marked unroutable after the
	// withdrawals, in the transactions that follow.
	deputy := th.runtime(t, th.addPersona(t, "work/core/deputy", "Zaniah"))
	waiting := make([]string, 20)
	for i := range waiting {
		asked, err := deputy.RequestConfirmation(ctx, hubapi.OperationRequest{Tool: "get_run",
			Target: fmt.Sprintf("run:work/core/t-9/r-%d", i), Shape: "read:meta", CorrelationID: fmt.Sprintf("ask-%d", i)})
		mustNil(t, err)
		if asked.Confirmation.Unroutable {
			t.Fatalf("the deputy's request %d is unroutable with a lead", i)
		}
		waiting[i] = asked.Confirmation.ID
	}
	retirement, err := henry.RequestRetirement(ctx, lead.Address, "project closed")
	mustNil(t, err)
	_, err = henry.Decide(ctx, retirement.Confirmation.ID, hubapi.DecideRequest{Approve: true})
	mustNil(t, err)
	for _, id := range ids {
		c, err := henry.Confirmation(ctx, id)
		mustNil(t, err)
		if c.State != confirm.StateWithdrawn {
			t.Fatalf("request %s of the retired lead is %s after its retirement", id, c.State)
		}
	}
	for _, id := range waiting {
		c, err := henry.Confirmation(ctx, id)
		mustNil(t, err)
		if !c.Unroutable || c.State != confirm.StatePending {
			t.Fatalf("the deputy's request %s waiting on the retired lead: unroutable=%v %s", id, c.Unroutable, c.State)
		}
	}
}
