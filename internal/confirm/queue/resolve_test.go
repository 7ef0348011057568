package queue

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/confirm/confirmtest"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// Spec footnotes: "A secretary resolves a decision only as a durable relay of
// the bound human authority's explicit decision. A team coordinator resolves
// only when the bound lane approver authorizes that decision. Neither class
// self-originates a resolution." So their resolve_decision is a confirmation
// routed to that authority, which alone decides it.
func TestResolutionsAreRelayedNotSelfOriginated(t *testing.T) {
	ctx := context.Background()
	ada := confirm.Principal{Kind: confirm.PrincipalHuman, Name: "ada"}
	for _, c := range []struct {
		address   string
		footnote  string
		boundary  confirm.BoundaryID
		route     confirm.Route
		authority confirm.Principal
		other     confirm.Principal
	}{
		{"root/secretary", "a secretary resolves a decision only as a durable relay of the bound human authority's explicit decision",
			confirm.BoundaryRelayedResolution, confirm.RouteHuman, henry, ada},
		{"work/coordinator", "a team coordinator resolves only when the bound lane approver authorizes that decision",
			confirm.BoundaryLaneApproval, confirm.RouteLaneApprover, ada, henry},
	} {
		t.Run(c.address, func(t *testing.T) {
			q, _ := queueFor(t, Options{})
			p := policyFor(t, c.address, confirm.Options{})
			resolve := op(t, p, "resolve_decision", "decision:work/core/d-1", stamp.ShapeRecordWrite)
			d := p.Authorize(resolve)
			if d.Verdict != confirm.Confirm || d.Boundary != c.boundary || d.Route() != c.route {
				t.Fatalf("resolve_decision: %s, want confirm %s routed to %s", d, c.boundary, c.route)
			}
			if !strings.Contains(d.String(), c.footnote) {
				t.Errorf("%q does not quote the footnote %q", d, c.footnote)
			}
			if d := p.Authorize(op(t, p, "list_decisions", "decision:work/core/d-1", stamp.ShapeReadMeta)); d.Verdict != confirm.Allow {
				t.Errorf("listing decisions is still its own work: %s", d)
			}
			me := confirm.PersonaPrincipal(p.Address())
			r := mustRequest(t, q, me, p, resolve, "corr-1")
			conf := r.Confirmation
			if r.Status != confirm.StatusUnknown || conf == nil || conf.Unroutable || conf.Authority != c.authority || conf.Route != c.route {
				t.Fatalf("request: %+v", r)
			}
			if _, err := commitApprove(ctx, q, me, conf.ID, confirm.RememberNone); !errors.Is(err, confirm.ErrSelfDecision) {
				t.Errorf("%s approving its own resolution: %v, want ErrSelfDecision", me, err)
			}
			if _, err := commitApprove(ctx, q, c.other, conf.ID, confirm.RememberNone); !errors.Is(err, confirm.ErrNotAuthority) {
				t.Errorf("%s approving a resolution routed to %s: %v, want ErrNotAuthority", c.other, c.authority, err)
			}
			if _, err := commitApprove(ctx, q, c.authority, conf.ID, confirm.RememberNone); err != nil {
				t.Fatal(err)
			}
			if r := mustRequest(t, q, me, p, resolve, "corr-1"); r.Status != confirm.StatusAllowed {
				t.Fatalf("after %s approved: %+v", c.authority, r)
			}
		})
	}
}

// A lane approver bound as a seat address routes like the owning lead: to
// the seat's active holder, and unroutable (never re-routed) while empty.
func TestLaneApproverSeatRouting(t *testing.T) {
	ctx := context.Background()
	st, _ := confirmtest.BuildStamp(t, "work/coordinator", 1)
	st.Authority.LaneApprover = "work/core/lead"
	rt, err := routeFor(ctx, seats{}, st, confirm.RouteLaneApprover)
	if err != nil || !rt.unroutable || rt.authority != confirm.PersonaPrincipal("work/core/lead") {
		t.Fatalf("empty seat: %+v, %v", rt, err)
	}
	rt, err = routeFor(ctx, seats{"work/core/lead": "Heze#1"}, st, confirm.RouteLaneApprover)
	if err != nil || rt.unroutable || rt.authority != confirm.PersonaPrincipal("work/core/lead") || !strings.Contains(rt.binding, "Heze#1") {
		t.Fatalf("held seat: %+v, %v", rt, err)
	}
	st.Authority.LaneApprover = ""
	if rt, err := routeFor(ctx, nil, st, confirm.RouteLaneApprover); err != nil || !rt.unroutable {
		t.Fatalf("no lane approver: %+v, %v", rt, err)
	}
}
