package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/confirm/queue"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// TestUnroutableConfirmationsAreReroutedWhenTheSeatFills: a deputy-scope
// confirmation asked while the owning lead seat is empty is unroutable; when a lead is activated it is re-routed to that lead in
// the activation's own audited transaction, appears in the lead's queue
// and on the change stream, and its expiry restarts.
func TestUnroutableConfirmationsAreReroutedWhenTheSeatFills(t *testing.T) {
	th := startHub(t, shortHome(t), Config{Coalesce: time.Millisecond}, Timeouts{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	henry := th.operator(t, "henry")
	deputy := th.addPersona(t, "work/core/deputy", "Zaniah")
	asked, err := th.runtime(t, deputy).RequestConfirmation(ctx, hubapi.OperationRequest{Tool: "get_run",
		Target: "run:work/core/t-9/r-1", Shape: "read:meta", CorrelationID: "reroute-1"})
	mustNil(t, err)
	c := asked.Confirmation
	if c == nil || !c.Unroutable || c.Boundary != confirm.BoundaryDeputyScope {
		t.Fatalf("deputy-scope request with no lead: %+v, want unroutable", c)
	}
	_, err = henry.Decide(ctx, c.ID, hubapi.DecideRequest{Approve: true})
	wantCode(t, err, "unroutable")

	snap, err := henry.Snapshot(ctx)
	mustNil(t, err)
	sub := henry.Subscribe(ctx, snap.Seq)
	time.Sleep(5 * time.Millisecond) // the expiry must visibly restart
	lead := th.addPersona(t, "work/core/lead", "Spica")

	got, err := henry.Confirmation(ctx, c.ID)
	mustNil(t, err)
	if got.Unroutable || got.State != confirm.StatePending || got.Authority.String() != "work/core/lead" ||
		got.AuthorityBinding != "owning lead work/core/lead held by Spica" {
		t.Fatalf("after the lead's activation: unroutable=%v %s %s %q", got.Unroutable, got.State, got.Authority, got.AuthorityBinding)
	}
	if !got.ExpiresAt.After(c.ExpiresAt) {
		t.Errorf("expiry %v did not restart (was %v)", got.ExpiresAt, c.ExpiresAt)
	}
	// One transaction with the activation.
	ckv, err := th.hub.st.Get(ctx, queue.PrefixConfirmation+c.ID)
	mustNil(t, err)
	pkv, err := th.hub.st.Get(ctx, "persona/"+lead.ID)
	mustNil(t, err)
	if ckv.ModRev != pkv.ModRev {
		t.Errorf("re-routed at revision %d, lead activated at %d: not one transaction", ckv.ModRev, pkv.ModRev)
	}
	// On the stream, and in the lead's queue.
	collect(t, sub, 5*time.Second, func(cs []hubapi.Change) bool {
		for _, ch := range cs {
			var cf confirm.Confirmation
			if ch.Kind == hubapi.KindConfirmation && json.Unmarshal(ch.Data, &cf) == nil && cf.ID == c.ID && !cf.Unroutable {
				return true
			}
		}
		return false
	})
	leadRT := th.runtime(t, lead)
	queue, err := leadRT.Confirmations(ctx, false)
	mustNil(t, err)
	if len(queue) != 1 || queue[0].ID != c.ID {
		t.Fatalf("the lead's queue: %d confirmations, want the re-routed %s", len(queue), c.ID)
	}
	audit, err := henry.Audit(ctx, 0)
	mustNil(t, err)
	found := false
	for _, e := range audit {
		found = found || (e.Event == "rerouted" && e.ConfirmationID == c.ID)
	}
	if !found {
		t.Fatal("no rerouted audit entry")
	}
	decided, err := leadRT.Decide(ctx, c.ID, hubapi.DecideRequest{Approve: true})
	mustNil(t, err)
	if decided.State != confirm.StateApproved {
		t.Fatalf("the lead's decision: %s", decided.State)
	}
}

// More unroutable confirmations wait on a seat than one transaction can
// re-route (store.MaxTxnOps): the activation's transaction re-routes what
// fits and follow-up transactions the rest, all of them before the
// activation is answered.
func TestReroutingMoreThanOneTransactionHolds(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	ctx := context.Background()
	deputy := th.addPersona(t, "work/core/deputy", "Zaniah")
	rt := th.runtime(t, deputy)
	n := store.MaxTxnOps/queue.RerouteOps + 10
	if limit := hubapi.LimitOf("pending_per_persona").Max; n > limit {
		n = limit
	}
	if n*queue.RerouteOps < store.MaxTxnOps {
		t.Fatalf("%d confirmations fit one transaction beside the activation's writes; the test needs more", n)
	}
	ids := make([]string, n)
	for i := range n {
		asked, err := rt.RequestConfirmation(ctx, hubapi.OperationRequest{Tool: "get_run",
			Target: fmt.Sprintf("run:work/core/t-9/r-%d", i), Shape: "read:meta", CorrelationID: fmt.Sprintf("many-%d", i)})
		mustNil(t, err)
		if !asked.Confirmation.Unroutable {
			t.Fatalf("request %d is routed with no lead", i)
		}
		ids[i] = asked.Confirmation.ID
	}
	th.addPersona(t, "work/core/lead", "Spica")
	henry := th.operator(t, "henry")
	for _, id := range ids {
		c, err := henry.Confirmation(ctx, id)
		mustNil(t, err)
		if c.Unroutable || c.Authority.String() != "work/core/lead" {
			t.Fatalf("confirmation %s after the lead's activation: unroutable=%v, authority %s", id, c.Unroutable, c.Authority)
		}
	}
}
