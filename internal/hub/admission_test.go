package hub

import (
	"context"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// TestAdmissionOnBothEndpointsOfAMessage:
// send_broker_message (and any addressed tool) to an address without an
// active holder is denied with a named rule, and a retired sender is
// refused.
func TestAdmissionOnBothEndpointsOfAMessage(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	ctx := context.Background()
	lead := th.addPersona(t, "work/core/lead", "Spica")
	deputy := th.addPersona(t, "work/core/deputy", "Zaniah")
	leadRT, depRT := th.runtime(t, lead), th.runtime(t, deputy)
	send := func(to string) hubapi.OperationRequest {
		return hubapi.OperationRequest{Tool: "send_broker_message", Target: "address:" + to, Shape: "message:send"}
	}
	verdict := func(to string) confirm.Decision {
		t.Helper()
		res, err := leadRT.Authorize(ctx, send(to))
		mustNil(t, err)
		return res.Decision
	}
	if d := verdict("work/core/deputy"); d.Verdict != confirm.Allow {
		t.Fatalf("a message to the active deputy: %v, want allow", d)
	}
	if d := verdict("work/web/lead"); d.Verdict != confirm.Deny || d.Boundary != confirm.BoundaryNoActiveHolder {
		t.Fatalf("a message to an empty seat: %v, want deny no-active-holder", d)
	}
	// A pending generation holds no seat actively either.
	_, err := th.operator(t, "henry").Register(ctx, hubapi.RegisterRequest{Address: "work/coordinator", Name: "Porrima", Human: "human:henry"})
	mustNil(t, err)
	if d := verdict("work/coordinator"); d.Verdict != confirm.Deny || d.Boundary != confirm.BoundaryNoActiveHolder {
		t.Fatalf("a message to a seat whose generation is pending: %v, want deny no-active-holder", d)
	}
	// The sender's end: the deputy retires; its token is refused, and it
	// is no longer an addressable end.
	th.retire(t, deputy.Address, "done")
	_, err = depRT.Authorize(ctx, send("work/core/lead"))
	wantCode(t, err, "retired")
	_, err = th.operator(t, "henry").Authorize(ctx, hubapi.OperationRequest{Persona: deputy.ID, Tool: "send_broker_message",
		Target: "address:work/core/lead", Shape: "message:send"})
	wantCode(t, err, "forbidden")
	if d := verdict("work/core/deputy"); d.Verdict != confirm.Deny || d.Boundary != confirm.BoundaryNoActiveHolder {
		t.Fatalf("a message to the retired deputy's seat: %v, want deny no-active-holder", d)
	}
	// Asked as a confirmation, the same denial, nothing queued.
	res, err := leadRT.RequestConfirmation(ctx, hubapi.OperationRequest{Tool: "send_broker_message",
		Target: "address:work/core/deputy", Shape: "message:send", CorrelationID: "adm-1"})
	mustNil(t, err)
	if res.Status != confirm.StatusDenied || res.Decision.Boundary != confirm.BoundaryNoActiveHolder || res.Confirmation != nil {
		t.Fatalf("requesting it: %+v, want denied at no-active-holder", res)
	}
}
