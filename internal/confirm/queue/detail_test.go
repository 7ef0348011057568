package queue

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/confirm/confirmtest"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// firstDiff is the class-matrix diff a first generation of address is
// activated with: every tool of its class (the registration use case's
// Detail).
func firstDiff(t testing.TB, address string) (*stamp.Stamp, string, string) {
	t.Helper()
	st, hash := confirmtest.BuildStamp(t, address, 1)
	return st, hash, stamp.RenderDiff(stamp.Diff(stamp.Stamp{}, *st))
}

// "The decider must still see exactly the diff that is approved, and
// history must still show it": an activation's detail is stored as its
// text (the store's value codec compresses the record), and every read of
// the confirmation — Get, List, the decided answer, a change event's
// payload, a queued request's answer — has the text it was queued with,
// byte for byte.
func TestActivationDetailReadWhole(t *testing.T) {
	ctx := context.Background()
	q, _ := queueFor(t, Options{})
	st, hash, diff := firstDiff(t, "work/core/lead")
	res, plan, err := q.PlanActivation(ctx, st, hash, diff)
	if err != nil {
		t.Fatal(err)
	}
	queued, err := ResultJSON(res, plan)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plan.Commit(ctx, q.st); err != nil {
		t.Fatal(err)
	}
	id := res.Confirmation.ID
	raw, err := q.st.Get(ctx, keyConfirmation(id))
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(res.Confirmation)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(raw.Value, want) {
		t.Fatalf("the pending activation is stored as\n%s\nnot as json.Marshal writes it\n%s", raw.Value, want)
	}

	check := func(what, got string) {
		t.Helper()
		if got != diff {
			t.Errorf("%s shows another detail:\n%q\nwant\n%q", what, got, diff)
		}
	}
	c, err := q.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	check("Get", c.Detail)
	all, err := q.List(ctx, true)
	if err != nil || len(all) != 1 {
		t.Fatalf("List: %v, %v", all, err)
	}
	check("List", all[0].Detail)
	var answer struct {
		Confirmation map[string]any `json:"confirmation"`
	}
	if err := json.Unmarshal(queued, &answer); err != nil {
		t.Fatal(err)
	}
	text, _ := answer.Confirmation["detail"].(string)
	check("the queued request's answer (ResultJSON)", text)

	decided, err := commitApprove(ctx, q, henry, id, confirm.RememberNone)
	if err != nil {
		t.Fatal(err)
	}
	check("the decided confirmation", decided.Detail)
	raw, err = q.st.Get(ctx, keyConfirmation(id))
	if err != nil {
		t.Fatal(err)
	}
	var event map[string]any
	if err := json.Unmarshal(raw.Value, &event); err != nil {
		t.Fatal(err)
	}
	text, _ = event["detail"].(string)
	check("a change event's payload (the stored record)", text)
}

// A retirement's confirmation (a short detail) is stored as json.Marshal
// writes it, as every undecided confirmation is.
func TestRetirementStoredAsMarshalled(t *testing.T) {
	ctx := context.Background()
	q, _ := queueFor(t, Options{})
	st, hash, _ := firstDiff(t, "work/core/deputy")
	if _, err := requestActivation(t, q, st, hash, "first generation"); err != nil {
		t.Fatal(err)
	}
	rr, err := commitRetirement(ctx, q, henry, st, hash, "project closed")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := q.st.Get(ctx, keyConfirmation(rr.Confirmation.ID))
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(rr.Confirmation)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(raw.Value, want) {
		t.Errorf("a retirement (a short detail) is stored as\n%s\nnot as json.Marshal writes it\n%s", raw.Value, want)
	}
}

// "The decision record stores the requester, authority binding, normalized
// operation, stamp hash, decision, and correlation id": a decided record
// is stored whole, as json.Marshal writes the decision answered, so every
// read — Get, List, the retried request, a change event's payload (the
// stored record) — has the whole decision record.
func TestDecisionStoredWhole(t *testing.T) {
	ctx := context.Background()
	q, _ := queueFor(t, Options{})
	p := policyFor(t, "work/core/lead", confirm.Options{})
	me := confirm.PersonaPrincipal(p.Address())
	o := deployOp(t, p)
	r := mustRequest(t, q, me, p, o, "corr-1")
	decided, err := commitDeny(ctx, q, henry, r.Confirmation.ID, "not today", confirm.RememberNone)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := json.Marshal(decided)
	if err != nil {
		t.Fatal(err)
	}
	d := decided.Decision
	if d == nil || d.Requester != me || !d.Operation.Equal(o) || d.CorrelationID != "corr-1" || d.StampHash != decided.StampHash || d.AuthorityBinding == "" {
		t.Fatalf("the decision answered: %+v", d)
	}
	raw, err := q.st.Get(ctx, keyConfirmation(decided.ID))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(raw.Value, whole) {
		t.Errorf("a decided confirmation is stored as\n%s\nnot as json.Marshal writes the answer\n%s", raw.Value, whole)
	}
	same := func(what string, c *confirm.Confirmation) {
		t.Helper()
		got, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, whole) {
			t.Errorf("%s:\n%s\nthe decision answered\n%s", what, got, whole)
		}
	}
	c, err := q.Get(ctx, decided.ID)
	if err != nil {
		t.Fatal(err)
	}
	same("Get", c)
	all, err := q.List(ctx, true)
	if err != nil || len(all) != 1 {
		t.Fatalf("List: %v, %v", all, err)
	}
	same("List", all[0])
	again := mustRequest(t, q, me, p, o, "corr-1")
	same("the retried request", again.Confirmation)
}
