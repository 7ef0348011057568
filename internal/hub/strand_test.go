package hub

import (
	"context"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/confirm/queue"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// Spec: "a deputy-scope confirmation goes to the owning lead." When the
// owning lead retires while one is pending, it is marked unroutable in the
// retirement's own transaction (its binding names the empty seat, not the
// retired lead, and an "unroutable" audit entry says why): nobody decides
// it meanwhile. When the next lead is activated it is re-routed to that
// lead, its binding naming the new holder, and the new lead decides it.
func TestADeputyScopeConfirmationFollowsItsSeatPastARetiredLead(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	ctx := context.Background()
	henry := th.operator(t, "henry")
	spica := th.addPersona(t, "work/core/lead", "Spica")
	deputy := th.addPersona(t, "work/core/deputy", "Zaniah")
	asked, err := th.runtime(t, deputy).RequestConfirmation(ctx, hubapi.OperationRequest{Tool: "get_run",
		Target: "run:work/core/t-9/r-1", Shape: "read:meta", CorrelationID: "strand-1"})
	mustNil(t, err)
	c := asked.Confirmation
	if c == nil || c.Unroutable || c.Boundary != confirm.BoundaryDeputyScope || c.AuthorityBinding != "owning lead work/core/lead held by Spica" {
		t.Fatalf("deputy-scope request with Spica leading: %+v, want routed to Spica", c)
	}

	retirement, err := henry.RequestRetirement(ctx, spica.Address, "moved to another project")
	mustNil(t, err)
	decided, err := henry.Decide(ctx, retirement.Confirmation.ID, hubapi.DecideRequest{Approve: true})
	mustNil(t, err)
	got, err := henry.Confirmation(ctx, c.ID)
	mustNil(t, err)
	if !got.Unroutable || got.State != confirm.StatePending || got.AuthorityBinding != "owning lead work/core/lead: seat empty" {
		t.Fatalf("after Spica's retirement: unroutable=%v %s %q; want unroutable, pending, naming the empty seat",
			got.Unroutable, got.State, got.AuthorityBinding)
	}
	// One transaction with the retirement.
	ckv, err := th.hub.st.Get(ctx, queue.PrefixConfirmation+c.ID)
	mustNil(t, err)
	rkv, err := th.hub.st.Get(ctx, queue.PrefixConfirmation+decided.ID)
	mustNil(t, err)
	if ckv.ModRev != rkv.ModRev {
		t.Errorf("marked unroutable at revision %d, retirement decided at %d: not one transaction", ckv.ModRev, rkv.ModRev)
	}
	_, err = henry.Decide(ctx, c.ID, hubapi.DecideRequest{Approve: true})
	wantCode(t, err, "unroutable")

	vega := th.addPersona(t, "work/core/lead", "Vega")
	got, err = henry.Confirmation(ctx, c.ID)
	mustNil(t, err)
	if got.Unroutable || got.State != confirm.StatePending || got.AuthorityBinding != "owning lead work/core/lead held by Vega" {
		t.Fatalf("after Vega's activation: unroutable=%v %s %q; want routed to Vega", got.Unroutable, got.State, got.AuthorityBinding)
	}
	audit, err := henry.Audit(ctx, 0)
	mustNil(t, err)
	var events []string
	for _, e := range audit {
		if e.ConfirmationID == c.ID {
			events = append(events, e.Event+": "+e.Reason)
		}
	}
	want := []string{"unroutable: was owning lead work/core/lead held by Spica; now owning lead work/core/lead: seat empty",
		"rerouted: was owning lead work/core/lead: seat empty; now owning lead work/core/lead held by Vega"}
	for _, w := range want {
		found := false
		for _, e := range events {
			found = found || strings.HasPrefix(e, w)
		}
		if !found {
			t.Errorf("no audit entry %q among %q", w, events)
		}
	}
	lead := th.runtime(t, vega)
	queue, err := lead.Confirmations(ctx, false)
	mustNil(t, err)
	if len(queue) != 1 || queue[0].ID != c.ID {
		t.Fatalf("Vega's queue: %d confirmations, want the re-routed %s", len(queue), c.ID)
	}
	approved, err := lead.Decide(ctx, c.ID, hubapi.DecideRequest{Approve: true})
	mustNil(t, err)
	if approved.State != confirm.StateApproved {
		t.Fatalf("Vega's decision: %s", approved.State)
	}
}
