package queue

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
)

// TestWithdrawnIsTerminalForItsCorrelationID: a request withdrawn by its
// generation's retirement answers denied to a retry under
// its correlation id, and deciding it is refused naming its state.
func TestWithdrawnIsTerminalForItsCorrelationID(t *testing.T) {
	ctx := context.Background()
	q, _ := queueFor(t, Options{})
	p := policyFor(t, "work/core/lead", confirm.Options{})
	me := confirm.PersonaPrincipal(p.Address())
	r := mustRequest(t, q, me, p, deployOp(t, p), "corr-w")
	c := r.Confirmation
	plan, left, err := q.PlanWithdraw(ctx, c.PersonaID, "", henry, "withdrawn: retired", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Ops) == 0 || left != 0 {
		t.Fatalf("planned %d writes, %d left, for one pending request of the generation", len(plan.Ops), left)
	}
	if _, err := plan.Commit(ctx, q.st); err != nil {
		t.Fatal(err)
	}
	r = mustRequest(t, q, me, p, deployOp(t, p), "corr-w")
	if r.Status != confirm.StatusDenied || r.Confirmation.State != confirm.StateWithdrawn || r.Confirmation.Decision.Decider != henry {
		t.Fatalf("retry after withdrawal: %+v", r)
	}
	_, err = commitApprove(ctx, q, henry, c.ID, confirm.RememberNone)
	if !errors.Is(err, confirm.ErrWithdrawn) {
		t.Fatalf("approving a withdrawn confirmation: %v, want ErrWithdrawn", err)
	}
	if want := "is withdrawn"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("refusal %q does not name the state", err)
	}
	// Withdrawing again finds nothing open.
	plan, left, err = q.PlanWithdraw(ctx, c.PersonaID, "", henry, "again", 10)
	if err != nil || !plan.Empty() || left != 0 {
		t.Fatalf("second withdrawal planned %d writes (%v)", len(plan.Ops), err)
	}
}
