package hub

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
)

// A coder-deputy's run inside a task its owning lead assigned is allowed;
// outside it, the run is a deputy-scope confirmation routed to the owning
// lead. The deputy cannot assign itself a task, nor assert assignments in
// its request.
func TestDeputyScopeFollowsTheLeadsAssignments(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	lead := th.addPersona(t, "work/core/lead", "Spica")
	deputy := th.addPersona(t, "work/core/deputy", "Zaniah")
	ctx := context.Background()
	leadRT, depRT := th.runtime(t, lead), th.runtime(t, deputy)
	getRun := func(target string) hubapi.OperationRequest {
		return hubapi.OperationRequest{Tool: "get_run", Target: target, Shape: "read:meta"}
	}

	res, err := depRT.Authorize(ctx, getRun("run:work/core/t-1/r-1"))
	mustNil(t, err)
	d := res.Decision
	if d.Verdict != confirm.Confirm || d.Boundary != confirm.BoundaryDeputyScope {
		t.Fatalf("run before any assignment: %v, want confirm at deputy scope", d)
	}
	// the deputy cannot widen its own scope, by the endpoint or in its request
	_, err = depRT.Assign(ctx, "work/core/deputy", "work/core/t-1")
	wantCode(t, err, "self_assignment")
	_, err = th.runtime(t, th.addPersona(t, "work/web/lead", "Arcturus")).Assign(ctx, "work/core/deputy", "work/core/t-1")
	wantCode(t, err, "not_assigner")
	_, err = th.operator(t, "ada").Assign(ctx, "work/core/deputy", "work/core/t-1")
	wantCode(t, err, "not_assigner")
	_, err = leadRT.Assign(ctx, "work/core/deputy", "work/web/t-1")
	wantCode(t, err, "outside_project")
	tok, err := os.ReadFile(th.home.GenerationDir(deputy.ID) + "/" + hubapi.TokenFile)
	mustNil(t, err)
	body := `{"tool":"get_run","target":"run:work/core/t-1/r-1","shape":"read:meta","assigned":["t-1"],"assignments":["t-1"]}`
	resp, ae := rawRequest(t, th.home.Dir, "POST", "/v1/authorize", strings.TrimSpace(string(tok)), []byte(body))
	if resp.StatusCode != 400 || ae.Code != "malformed_json" {
		t.Fatalf("authorize asserting its own assignments: %d %s %s, want 400 malformed_json", resp.StatusCode, ae.Code, ae.Msg)
	}

	a, err := leadRT.Assign(ctx, "work/core/deputy", "work/core/t-1")
	mustNil(t, err)
	if a.AssignedBy.String() != "work/core/lead" || a.PersonaID != deputy.ID || a.Task != "work/core/t-1" {
		t.Fatalf("assignment: %+v", a)
	}
	res, err = depRT.Authorize(ctx, getRun("run:work/core/t-1/r-1"))
	mustNil(t, err)
	d = res.Decision
	if d.Verdict != confirm.Allow {
		t.Fatalf("run inside the assigned task: %v, want allow", d)
	}
	asked, err := depRT.RequestConfirmation(ctx, hubapi.OperationRequest{Tool: "get_run", Target: "run:work/core/t-9/r-1",
		Shape: "read:meta", CorrelationID: "outside-1"})
	mustNil(t, err)
	if asked.Status != confirm.StatusUnknown || asked.Confirmation.Authority.String() != "work/core/lead" ||
		asked.Confirmation.Boundary != confirm.BoundaryDeputyScope {
		t.Fatalf("run outside the assigned task: %+v, want pending for the owning lead", asked.Confirmation)
	}

	for _, c := range []*hubclient.Client{depRT, leadRT, th.operator(t, "henry")} {
		as, err := c.Assignments(ctx, "work/core/deputy")
		mustNil(t, err)
		if len(as) != 1 || as[0].Task != "work/core/t-1" {
			t.Fatalf("assignments: %+v", as)
		}
	}
	// the bound human may take it back; then the run asks again
	mustNil(t, th.operator(t, "henry").Unassign(ctx, "work/core/deputy", "work/core/t-1"))
	wantCode(t, th.operator(t, "henry").Unassign(ctx, "work/core/deputy", "work/core/t-1"), "not_assigned")
	res, err = depRT.Authorize(ctx, getRun("run:work/core/t-1/r-1"))
	mustNil(t, err)
	d = res.Decision
	if d.Verdict != confirm.Confirm {
		t.Fatalf("run after unassignment: %v, want confirm", d)
	}
}

// An assignment and its removal reach every subscriber, like every other
// state change: a console sees what a lead delegated.
func TestAssignmentsAreOnTheStream(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	lead := th.addPersona(t, "work/core/lead", "Spica")
	th.addPersona(t, "work/core/deputy", "Zaniah")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	op := th.operator(t, "henry")
	snap, err := op.Snapshot(ctx)
	mustNil(t, err)
	sub := op.Subscribe(ctx, snap.Seq)
	leadRT := th.runtime(t, lead)
	_, err = leadRT.Assign(ctx, "work/core/deputy", "work/core/t-1")
	mustNil(t, err)
	mustNil(t, leadRT.Unassign(ctx, "work/core/deputy", "work/core/t-1"))
	var put, del bool
	collect(t, sub, 5*time.Second, func(cs []hubapi.Change) bool {
		for _, c := range cs {
			if c.Kind == hubapi.KindTask && c.ID == "t-1" {
				put = put || !c.Delete
				del = del || c.Delete
			}
		}
		return put && del
	})
}
