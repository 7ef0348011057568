package queue

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// queueFor opens a queue on a real bbolt file with a fake clock.
func queueFor(t testing.TB, opts Options) (*Queue, *fakeClock) {
	t.Helper()
	s, _ := openStore(t)
	clk := newClock()
	if opts.Now == nil {
		opts.Now = clk.Now
	}
	return New(s, opts), clk
}

// deployOp is a confirm-level operation of p: a deployment (global boundary).
func deployOp(t testing.TB, p *confirm.Policy) confirm.Operation {
	return op(t, p, "publish_deployment_v1", "external:https://example.org/release", stamp.ShapeDeploy)
}

func mustRequest(t testing.TB, q *Queue, caller confirm.Principal, p *confirm.Policy, o confirm.Operation, corr string) confirm.Result {
	t.Helper()
	r, err := commitRequest(context.Background(), q, caller, p, o, corr)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// learnedPolicy is p given the learned choices current for it, as the use
// cases build a request's policy (usecase.Policy from Prompts.Active): a
// request applies only the choices its policy was given.
func learnedPolicy(t testing.TB, q *Queue, p *confirm.Policy) *confirm.Policy {
	t.Helper()
	active, err := q.Prompts().Active(context.Background(), p.Address(), p.Profile(), p.Keys())
	if err != nil {
		t.Fatal(err)
	}
	return p.With(confirm.Options{Learned: active})
}

func TestRequestQueuesToBoundHumanAndApprovalAllows(t *testing.T) {
	ctx := context.Background()
	q, _ := queueFor(t, Options{})
	p := policyFor(t, "work/core/lead", confirm.Options{})
	me := confirm.PersonaPrincipal(p.Address())
	r := mustRequest(t, q, me, p, deployOp(t, p), "corr-1")
	if r.Status != confirm.StatusUnknown || r.Confirmation == nil {
		t.Fatalf("confirm-level request: %+v", r)
	}
	c := r.Confirmation
	if c.Authority != henry || c.Requester != me || c.Boundary != confirm.BoundaryPublication || c.Unroutable {
		t.Fatalf("routing: %+v", c)
	}
	if _, err := commitApprove(ctx, q, henry, c.ID, confirm.RememberNone); err != nil {
		t.Fatal(err)
	}
	// Retrying under the same correlation id returns the terminal result.
	r = mustRequest(t, q, me, p, deployOp(t, p), "corr-1")
	if r.Status != confirm.StatusAllowed || r.Confirmation.Decision == nil || r.Confirmation.Decision.Decider != henry {
		t.Fatalf("after approval: %+v", r)
	}
	rec := r.Confirmation.Decision
	if rec.Requester != me || rec.Authority != henry || rec.StampHash != p.Hash() || rec.CorrelationID != "corr-1" ||
		!rec.Operation.Equal(deployOp(t, p)) || rec.Decision != confirm.StateApproved {
		t.Fatalf("decision record: %+v", rec)
	}
	// Allow and deny verdicts answer at once and queue nothing.
	if r := mustRequest(t, q, me, p, op(t, p, "workspace_read", "path:QUEUE.md", stamp.ShapeReadRange), "corr-2"); r.Status != confirm.StatusAllowed || r.Confirmation != nil {
		t.Fatalf("allow: %+v", r)
	}
	if r := mustRequest(t, q, me, p, op(t, p, "workspace_read", "path:.env", stamp.ShapeReadRange), "corr-3"); r.Status != confirm.StatusDenied || r.Decision.Boundary != confirm.BoundarySecretValues {
		t.Fatalf("deny: %+v", r)
	}
	// The audit log has the request and the decision.
	entries, err := Audit(ctx, q.st)
	if err != nil || len(entries) != 2 || entries[0].Event != "requested" || entries[1].Event != "approved" || entries[1].Actor != henry {
		t.Fatalf("audit: %+v, %v", entries, err)
	}
}

// Spec: "A model cannot confirm its own request."
func TestSelfConfirmationRefused(t *testing.T) {
	ctx := context.Background()
	q, _ := queueFor(t, Options{Seats: seats{"work/core/lead": "Vega#1"}})
	p := policyFor(t, "work/core/deputy", confirm.Options{})
	me := confirm.PersonaPrincipal(p.Address())
	r := mustRequest(t, q, me, p, op(t, p, "get_run", "run:work/core/t-9/r-1", stamp.ShapeReadMeta), "c1")
	if _, err := commitApprove(ctx, q, me, r.Confirmation.ID, confirm.RememberNone); !errors.Is(err, confirm.ErrSelfDecision) {
		t.Fatalf("persona approving its own request: %v", err)
	}
	// A human who requested on the persona's behalf cannot decide it either.
	hp := policyFor(t, "work/core/lead", confirm.Options{})
	r = mustRequest(t, q, henry, hp, deployOp(t, hp), "c2")
	if _, err := commitApprove(ctx, q, henry, r.Confirmation.ID, confirm.RememberNone); !errors.Is(err, confirm.ErrSelfDecision) {
		t.Fatalf("human approving own request: %v", err)
	}
	// A persona may not request under another persona's stamp.
	if _, err := commitRequest(ctx, q, confirm.PersonaPrincipal("work/core/lead"), p, op(t, p, "get_run", "run:work/core/t-9/r-1", stamp.ShapeReadMeta), "c3"); !errors.Is(err, confirm.ErrWrongPersona) {
		t.Fatalf("request under another stamp: %v", err)
	}
}

func TestModelDecidingGlobalBoundaryRefused(t *testing.T) {
	ctx := context.Background()
	q, _ := queueFor(t, Options{})
	p := policyFor(t, "work/core/deputy", confirm.Options{})
	r := mustRequest(t, q, confirm.PersonaPrincipal(p.Address()), p, deployOp(t, p), "c1")
	for _, model := range []confirm.Principal{confirm.PersonaPrincipal("work/core/lead"), confirm.PersonaPrincipal("root/secretary")} {
		if _, err := commitApprove(ctx, q, model, r.Confirmation.ID, confirm.RememberNone); !errors.Is(err, confirm.ErrModelDecision) {
			t.Fatalf("%s approving a deployment: %v", model, err)
		}
	}
	if _, err := commitApprove(ctx, q, confirm.Principal{Kind: confirm.PrincipalHuman, Name: "mallory"}, r.Confirmation.ID, confirm.RememberNone); !errors.Is(err, confirm.ErrNotAuthority) {
		t.Fatalf("another human: %v", err)
	}
	if _, err := commitDeny(ctx, q, henry, r.Confirmation.ID, "not today", confirm.RememberNone); err != nil {
		t.Fatal(err)
	}
	if _, err := commitApprove(ctx, q, henry, r.Confirmation.ID, confirm.RememberNone); !errors.Is(err, confirm.ErrAlreadyDecided) {
		t.Fatalf("second decision: %v", err)
	}
}

// Deputy-scope confirmations go to the owning lead (a model may decide
// those); an empty lead seat leaves the confirmation pending and unroutable.
func TestDeputyScopeRoutingAndUnroutable(t *testing.T) {
	ctx := context.Background()
	holders := seats{"work/core/lead": "Vega#1"}
	q, _ := queueFor(t, Options{Seats: holders})
	p := policyFor(t, "work/core/deputy", confirm.Options{})
	me := confirm.PersonaPrincipal(p.Address())
	r := mustRequest(t, q, me, p, op(t, p, "get_run", "run:work/core/t-9/r-1", stamp.ShapeReadMeta), "c1")
	lead := confirm.PersonaPrincipal("work/core/lead")
	if r.Confirmation.Authority != lead || r.Confirmation.Unroutable {
		t.Fatalf("deputy scope routing: %+v", r.Confirmation)
	}
	if _, err := commitApprove(ctx, q, henry, r.Confirmation.ID, confirm.RememberNone); !errors.Is(err, confirm.ErrNotAuthority) {
		t.Fatalf("human deciding a lead's confirmation: %v", err)
	}
	if _, err := commitApprove(ctx, q, lead, r.Confirmation.ID, confirm.RememberNone); err != nil {
		t.Fatalf("lead approving: %v", err)
	}
	delete(holders, "work/core/lead")
	r = mustRequest(t, q, me, p, op(t, p, "get_run", "run:work/core/t-8/r-1", stamp.ShapeReadMeta), "c2")
	c := r.Confirmation
	if !c.Unroutable || r.Status != confirm.StatusUnknown {
		t.Fatalf("empty seat: %+v", c)
	}
	holders["work/core/lead"] = "Vega-II#2"
	for _, who := range []confirm.Principal{lead, henry} {
		if _, err := commitApprove(ctx, q, who, c.ID, confirm.RememberNone); !errors.Is(err, confirm.ErrUnroutable) {
			t.Fatalf("%s deciding an unroutable confirmation: %v", who, err)
		}
	}
	if got, _ := q.Get(ctx, c.ID); got.State != confirm.StatePending || !got.Unroutable {
		t.Fatalf("unroutable confirmation re-routed or decided: %+v", got)
	}
}

func TestSameOperationJoinsPendingRequest(t *testing.T) {
	ctx := context.Background()
	q, _ := queueFor(t, Options{})
	p := policyFor(t, "work/core/lead", confirm.Options{})
	me := confirm.PersonaPrincipal(p.Address())
	a := mustRequest(t, q, me, p, deployOp(t, p), "c1")
	b := mustRequest(t, q, me, p, deployOp(t, p), "c2")
	if a.Confirmation.ID != b.Confirmation.ID {
		t.Fatalf("same operation queued twice: %s, %s", a.Confirmation.ID, b.Confirmation.ID)
	}
	if list, _ := q.List(ctx, false); len(list) != 1 {
		t.Fatalf("%d pending, want 1", len(list))
	}
	if _, err := commitRequest(ctx, q, me, p, op(t, p, "workspace_write", "path:memory/x.md", stamp.ShapeDelete), "c1"); !errors.Is(err, confirm.ErrCorrelationReuse) {
		t.Fatalf("correlation id reused for another operation: %v", err)
	}
	if _, err := commitDeny(ctx, q, henry, a.Confirmation.ID, "no", confirm.RememberNone); err != nil {
		t.Fatal(err)
	}
	for _, corr := range []string{"c1", "c2"} {
		if r := mustRequest(t, q, me, p, deployOp(t, p), corr); r.Status != confirm.StatusDenied {
			t.Fatalf("%s after denial: %+v", corr, r)
		}
	}
	// Asked again under a new id after the (unremembered) denial: a new request.
	if r := mustRequest(t, q, me, p, deployOp(t, p), "c3"); r.Status != confirm.StatusUnknown || r.Confirmation.ID == a.Confirmation.ID {
		t.Fatalf("new request after denial: %+v", r)
	}
}

func TestExpiryCountsAsDenied(t *testing.T) {
	ctx := context.Background()
	q, clk := queueFor(t, Options{TTL: 10 * time.Minute})
	p := policyFor(t, "work/core/lead", confirm.Options{})
	me := confirm.PersonaPrincipal(p.Address())
	r := mustRequest(t, q, me, p, deployOp(t, p), "c1")
	if got := r.Confirmation.ExpiresAt.Sub(r.Confirmation.CreatedAt); got != 10*time.Minute {
		t.Fatalf("expiry after %s", got)
	}
	clk.Advance(10 * time.Minute)
	if r := mustRequest(t, q, me, p, deployOp(t, p), "c1"); r.Status != confirm.StatusDenied {
		t.Fatalf("retry after expiry: %+v", r)
	}
	if _, err := commitApprove(ctx, q, henry, r.Confirmation.ID, confirm.RememberNone); !errors.Is(err, confirm.ErrExpired) {
		t.Fatalf("approving an expired confirmation: %v", err)
	}
	c, _ := q.Get(ctx, r.Confirmation.ID)
	if c.State != confirm.StateExpired || c.Decision == nil || c.Decision.Decision != confirm.StateExpired {
		t.Fatalf("expiry not recorded: %+v", c)
	}
	if _, err := commitApprove(ctx, q, henry, c.ID, confirm.RememberNone); !errors.Is(err, confirm.ErrAlreadyDecided) {
		t.Fatalf("after recorded expiry: %v", err)
	}
	// The default TTL is one hour; an expired one stays undecided (for
	// the sweep to find) until its expiry is recorded.
	q2, clk2 := queueFor(t, Options{})
	r2 := mustRequest(t, q2, me, p, deployOp(t, p), "c9")
	if got := r2.Confirmation.ExpiresAt.Sub(r2.Confirmation.CreatedAt); got != time.Hour {
		t.Fatalf("default expiry %s", got)
	}
	clk2.Advance(time.Hour + time.Second)
	if u, err := q2.Undecided(ctx); err != nil || len(u) != 1 || u[0].ID != r2.Confirmation.ID {
		t.Fatalf("undecided after expiry, before the sweep: %v, %v", u, err)
	}
	if _, err := commitApprove(ctx, q2, henry, r2.Confirmation.ID, confirm.RememberNone); !errors.Is(err, confirm.ErrExpired) {
		t.Fatalf("approving an expired confirmation: %v", err)
	}
	if u, err := q2.Undecided(ctx); err != nil || len(u) != 0 {
		t.Fatalf("undecided once the expiry is recorded: %v, %v", u, err)
	}
}

// Concurrent approve and deny of one confirmation from many goroutines end
// in exactly one decision.
func TestConcurrentDecisionsExactlyOne(t *testing.T) {
	ctx := context.Background()
	q, _ := queueFor(t, Options{})
	p := policyFor(t, "work/core/lead", confirm.Options{})
	r := mustRequest(t, q, confirm.PersonaPrincipal(p.Address()), p, deployOp(t, p), "c1")
	const n = 32
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				_, errs[i] = commitApprove(ctx, q, henry, r.Confirmation.ID, confirm.RememberNone)
			} else {
				_, errs[i] = commitDeny(ctx, q, henry, r.Confirmation.ID, fmt.Sprintf("deny %d", i), confirm.RememberNone)
			}
		}()
	}
	wg.Wait()
	wins := 0
	for _, err := range errs {
		switch {
		case err == nil:
			wins++
		case !errors.Is(err, confirm.ErrAlreadyDecided):
			t.Fatalf("unexpected: %v", err)
		}
	}
	if wins != 1 {
		t.Fatalf("%d decisions, want exactly 1", wins)
	}
	entries, _ := Audit(ctx, q.st)
	decided := 0
	for _, e := range entries {
		if e.Event == "approved" || e.Event == "denied" {
			decided++
		}
	}
	if decided != 1 {
		t.Fatalf("%d decision audit entries", decided)
	}
}

func TestPrincipals(t *testing.T) {
	for in, want := range map[string]confirm.Principal{
		"human:henry":    henry,
		"human:Henry":    henry,
		"work/core/lead": confirm.PersonaPrincipal("work/core/lead"),
	} {
		if got, err := confirm.ParsePrincipal(in); err != nil || got != want {
			t.Errorf("ParsePrincipal(%q) = %+v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "henry", "human:", "human:-x", "system:expiry", "Work/Core/Lead", "human:h\u0435nry"} {
		if _, err := confirm.ParsePrincipal(bad); !errors.Is(err, confirm.ErrBadPrincipal) {
			t.Errorf("ParsePrincipal(%q): %v", bad, err)
		}
	}
}

// Once the undecided index is built, the pending list is read through it,
// not by decoding every confirmation ever decided (a console's snapshot
// asks for it; at 10,000 activated personas the scan decoded 32 MB): a
// decided record is never read.
func TestPendingListReadsTheIndexNotTheHistory(t *testing.T) {
	ctx := context.Background()
	q, _ := queueFor(t, Options{})
	p := policyFor(t, "work/core/lead", confirm.Options{})
	me := confirm.PersonaPrincipal(p.Address())
	pending := mustRequest(t, q, me, p, deployOp(t, p), "c1").Confirmation
	decided := mustRequest(t, q, me, p, op(t, p, "publish_deployment_v1", "external:https://example.org/other", stamp.ShapeDeploy), "c2").Confirmation
	if _, err := commitDeny(ctx, q, henry, decided.ID, "no", confirm.RememberNone); err != nil {
		t.Fatal(err)
	}
	// The decided record made unreadable: a list that reads it fails.
	if _, err := q.st.Txn(ctx, nil, []store.Op{store.Put(keyConfirmation(decided.ID), []byte("not a confirmation"))}); err != nil {
		t.Fatal(err)
	}
	list, err := q.List(ctx, false)
	if err != nil || len(list) != 1 || list[0].ID != pending.ID {
		t.Fatalf("pending list through the index: %v, %v; want only %s", list, err, pending.ID)
	}
	if _, err := q.List(ctx, true); err == nil {
		t.Fatal("the list of all confirmations did not read the decided one")
	}
}

// ResultJSON writes what encoding/json writes for a result, taking the
// confirmation's bytes from the plan's record when the plan queues it:
// for a new confirmation, a joined one and an allowed operation alike.
func TestResultJSONIsTheResultsEncoding(t *testing.T) {
	ctx := context.Background()
	q, _ := queueFor(t, Options{})
	p := policyFor(t, "work/core/lead", confirm.Options{})
	me := confirm.PersonaPrincipal(p.Address())
	check := func(what string, res confirm.Result, plan store.Plan) {
		t.Helper()
		got, err := ResultJSON(res, plan)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(res)
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: ResultJSON wrote\n%s\nencoding/json\n%s", what, got, want)
		}
	}
	res, plan, err := q.PlanRequest(ctx, me, p, deployOp(t, p), "new-1")
	if err != nil || res.Confirmation == nil {
		t.Fatalf("plan a new confirmation: %+v, %v", res, err)
	}
	check("new", res, plan)
	if _, err := plan.Commit(ctx, q.st); err != nil {
		t.Fatal(err)
	}
	res, plan, err = q.PlanRequest(ctx, me, p, deployOp(t, p), "join-1")
	if err != nil || res.Confirmation == nil {
		t.Fatalf("plan joining it: %+v, %v", res, err)
	}
	check("joined", res, plan)
	res, plan, err = q.PlanRequest(ctx, me, p, op(t, p, "workspace_read", "path:README.md", stamp.ShapeReadRange), "read-1")
	if err != nil {
		t.Fatal(err)
	}
	check("allowed", res, plan)
}
