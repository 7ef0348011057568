package queue

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// readCounter counts the confirmation records read through it.
type readCounter struct {
	store.Store
	reads atomic.Int64
}

func (r *readCounter) Get(ctx context.Context, key string) (store.KV, error) {
	if strings.HasPrefix(key, PrefixConfirmation) {
		r.reads.Add(1)
	}
	return r.Store.Get(ctx, key)
}

// Re-routing a filled seat and withdrawing a retired generation's
// requests read only the confirmations they pick, by their undecided
// entries: approving n registrations one by one read every undecided
// confirmation for each, n² decodes.
func TestReroutingAndWithdrawingReadOnlyWhatTheyPick(t *testing.T) {
	ctx := context.Background()
	s, _ := openStore(t)
	rc := &readCounter{Store: s}
	holders := seats{}
	q := New(rc, Options{Seats: holders, Now: newClock().Now})
	lead := policyFor(t, "work/core/lead", confirm.Options{})
	deputy := policyFor(t, "work/core/deputy", confirm.Options{})
	for i := range 40 {
		mustRequest(t, q, confirm.PersonaPrincipal(lead.Address()), lead,
			op(t, lead, "publish_deployment_v1", fmt.Sprintf("external:https://example.org/%d", i), stamp.ShapeDeploy), fmt.Sprintf("l-%d", i))
	}
	unroutable := mustRequest(t, q, confirm.PersonaPrincipal(deputy.Address()), deputy,
		op(t, deputy, "get_run", "run:work/core/t-9/r-1", stamp.ShapeReadMeta), "d-1").Confirmation
	other := mustRequest(t, q, confirm.PersonaPrincipal(deputy.Address()), deputy,
		op(t, deputy, "get_run", "run:work/core/t-8/r-1", stamp.ShapeReadMeta), "d-2").Confirmation
	if !unroutable.Unroutable || !other.Unroutable {
		t.Fatalf("the deputy's requests with the lead seat empty: %+v, %+v; want unroutable", unroutable, other)
	}

	rc.reads.Store(0)
	plan, left, err := q.PlanReroute(ctx, "work/core/lead", "Spica", 100)
	if err != nil || left != 0 {
		t.Fatal(left, err)
	}
	if got := rc.reads.Load(); got != 2 {
		t.Fatalf("re-routing read %d confirmations; want the 2 it re-routes", got)
	}
	if _, err := plan.Commit(ctx, s); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{unroutable.ID, other.ID} {
		if c, err := q.Get(ctx, id); err != nil || c.Unroutable || c.AuthorityBinding != "owning lead work/core/lead held by Spica" {
			t.Fatalf("after re-routing: %+v, %v", c, err)
		}
	}
	// The re-routed entries say so: a second re-route picks nothing.
	rc.reads.Store(0)
	if plan, _, err := q.PlanReroute(ctx, "work/core/lead", "Spica", 100); err != nil || !plan.Empty() || rc.reads.Load() != 0 {
		t.Fatalf("re-routing again: %+v, %v, %d reads; want nothing", plan, err, rc.reads.Load())
	}

	rc.reads.Store(0)
	plan, _, err = q.PlanWithdraw(ctx, deputy.Stamp().Persona.ID, "", confirm.SystemPrincipal("retirement"), "retired", 100)
	if err != nil {
		t.Fatal(err)
	}
	if got := rc.reads.Load(); got != 2 {
		t.Fatalf("withdrawing the deputy's read %d confirmations; want its 2", got)
	}
	if _, err := plan.Commit(ctx, s); err != nil {
		t.Fatal(err)
	}
	if u, err := q.Undecided(ctx); err != nil || len(u) != 40 {
		t.Fatalf("undecided after the withdrawal: %d, %v; want the lead's 40", len(u), err)
	}
}
