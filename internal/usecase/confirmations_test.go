package usecase

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"sync"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/confirm/queue"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// interleaved is a real store that runs a concurrent writer's change just
// before the next transaction commits: the moment between a use case's
// read and its commit, made to happen every time.
type interleaved struct {
	store.Store
	mu     sync.Mutex
	before func()
}

func (s *interleaved) Txn(ctx context.Context, conds []store.Cond, ops []store.Op) (int64, error) {
	s.mu.Lock()
	f := s.before
	s.before = nil
	s.mu.Unlock()
	if f != nil {
		f()
	}
	return s.Store.Txn(ctx, conds, ops)
}

// activeLead registers and activates a stamped lead at work/core/lead.
func activeLead(t testing.TB, in *installation) registry.Persona {
	t.Helper()
	ctx := context.Background()
	res, err := in.cases.Register(ctx, Key{}, Registration{Registration: registry.Registration{Address: "work/core/lead", Name: "Spica", Human: "human:henry"}})
	mustNil(t, err)
	_, err = in.cases.Decide(ctx, Key{}, henry, res.Confirmation.ID, true, confirm.RememberNone, "")
	mustNil(t, err)
	p, err := in.reg.Get(ctx, res.Persona.ID)
	mustNil(t, err)
	return p
}

// deploy is an operation a lead must have confirmed by its bound human.
func deploy(corr string) OperationRequest {
	return OperationRequest{Tool: "publish_deployment_v1", Target: "external:https://example.org/release", Shape: "deploy", CorrelationID: corr}
}

// A confirmation request in flight while its persona is
// retired is not admitted after the retirement commits. The retirement
// commits between the request's read of the persona (active) and its
// commit; the request plans again, finds the generation retired and is
// refused, and nothing of it is queued.
func TestRequestInFlightDuringRetirementIsNotAdmitted(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	lead := activeLead(t, in)
	caller := Caller{Principal: confirm.PersonaPrincipal(lead.Address), PersonaID: lead.ID}
	retirement, err := in.cases.Retire(ctx, Key{}, Caller{Principal: henry}, lead.Address, "project closed")
	mustNil(t, err)
	if retirement.Confirmation == nil {
		t.Fatal("a stamped generation's retirement was not queued for its bound human")
	}

	racing := &interleaved{Store: in.st}
	requests := New(Config{Store: racing, Registry: in.reg, Queue: in.queue, Now: in.clk.Now})
	racing.before = func() {
		if _, err := in.cases.Decide(ctx, Key{}, henry, retirement.Confirmation.ID, true, confirm.RememberNone, ""); err != nil {
			t.Errorf("approve the retirement: %v", err)
		}
	}
	res, _, err := requests.RequestConfirmation(ctx, Key{}, caller, deploy("in-flight-1"))
	if !errors.Is(err, ErrForbidden) {
		t.Fatalf("a request of a generation retired while it was in flight: %+v, %v; want ErrForbidden", res, err)
	}
	if racing.before != nil {
		t.Fatal("the retirement did not run between the request's read and its commit")
	}
	pending, err := in.queue.Undecided(ctx)
	mustNil(t, err)
	for _, c := range pending {
		if c.PersonaID == lead.ID {
			t.Fatalf("confirmation %s (%s) of the retired generation was admitted after its retirement", c.ID, c.State)
		}
	}
}

// Without the race, the same request is queued for the bound human: the
// test above fails for the retirement, not for the request.
func TestRequestOfAnActiveLeadIsQueued(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	lead := activeLead(t, in)
	caller := Caller{Principal: confirm.PersonaPrincipal(lead.Address), PersonaID: lead.ID}
	res, _, err := in.cases.RequestConfirmation(ctx, Key{}, caller, deploy("calm-1"))
	mustNil(t, err)
	if res.Confirmation == nil || res.Confirmation.State != confirm.StatePending || res.Confirmation.Authority != henry {
		t.Fatalf("the lead's deploy: %+v; want pending for %s", res, henry)
	}
}

// A queued request's answer is its result encoded once: the bytes the hub
// sends are the result its idempotency record holds, and a repeat under
// the same key answers the same bytes.
func TestRequestAnswerIsTheRecordedResult(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	lead := activeLead(t, in)
	caller := Caller{Principal: confirm.PersonaPrincipal(lead.Address), PersonaID: lead.ID}
	k := mustKey(t, "persona:"+lead.ID, "019a1b2c3d4-a1", "POST", "/v1/confirmations", "deploy")
	res, answer, err := in.cases.RequestConfirmation(ctx, k, caller, deploy("once-1"))
	mustNil(t, err)
	var sent confirm.Result
	mustNil(t, json.Unmarshal(answer, &sent))
	if !reflect.DeepEqual(sent, res) {
		t.Fatalf("the answer %s decodes to %+v, not the result %+v", answer, sent, res)
	}
	kv, err := in.st.Get(ctx, k.storeKey())
	mustNil(t, err)
	var rec idempotencyRecord
	mustNil(t, json.Unmarshal(kv.Value, &rec))
	if !bytes.Equal(rec.Result, answer) || rec.Request != k.Request || rec.At.IsZero() {
		t.Fatalf("the record %s does not hold the answer %s", kv.Value, answer)
	}
	again, answerAgain, err := in.cases.RequestConfirmation(ctx, k, caller, deploy("once-1"))
	mustNil(t, err)
	if !bytes.Equal(answerAgain, answer) || again.Confirmation.ID != res.Confirmation.ID {
		t.Fatalf("the repeat answered %s, want %s", answerAgain, answer)
	}
}

// The repeat of a request that queued a confirmation answers the original
// result whatever happened since — the confirmation approved, the persona
// retired — and a key sent again with another request is refused, although
// a first attempt plans before it looks for the key's record.
func TestRequestRepeatAnswersTheOriginalResultAfterChanges(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	lead := activeLead(t, in)
	caller := Caller{Principal: confirm.PersonaPrincipal(lead.Address), PersonaID: lead.ID}
	k := mustKey(t, "persona:"+lead.ID, "019a1b2c3d4-b1", "POST", "/v1/confirmations", "deploy")
	first, answer, err := in.cases.RequestConfirmation(ctx, k, caller, deploy("repeat-1"))
	mustNil(t, err)
	if first.Status != confirm.StatusUnknown || first.Confirmation == nil {
		t.Fatalf("the first request: %+v, want a pending confirmation", first)
	}
	_, err = in.cases.Decide(ctx, Key{}, henry, first.Confirmation.ID, true, confirm.RememberNone, "")
	mustNil(t, err)
	again, answerAgain, err := in.cases.RequestConfirmation(ctx, k, caller, deploy("repeat-1"))
	mustNil(t, err)
	if !bytes.Equal(answerAgain, answer) || again.Status != confirm.StatusUnknown || again.Confirmation.State != confirm.StatePending {
		t.Fatalf("the repeat after the approval answered %s, want the original %s", answerAgain, answer)
	}
	if fresh, _, err := in.cases.RequestConfirmation(ctx, Key{}, caller, deploy("repeat-1")); err != nil || fresh.Status != confirm.StatusAllowed {
		t.Fatalf("the same correlation id without the key: %+v, %v; want the decided answer (allowed)", fresh, err)
	}
	other := mustKey(t, "persona:"+lead.ID, "019a1b2c3d4-b1", "POST", "/v1/confirmations", "another")
	if _, _, err := in.cases.RequestConfirmation(ctx, other, caller, deploy("repeat-2")); !errors.Is(err, ErrIdempotencyKeyReused) {
		t.Fatalf("the key with another request: %v, want ErrIdempotencyKeyReused", err)
	}
	retirement, err := in.cases.Retire(ctx, Key{}, Caller{Principal: henry}, lead.Address, "project closed")
	mustNil(t, err)
	_, err = in.cases.Decide(ctx, Key{}, henry, retirement.Confirmation.ID, true, confirm.RememberNone, "")
	mustNil(t, err)
	_, answerRetired, err := in.cases.RequestConfirmation(ctx, k, caller, deploy("repeat-1"))
	if err != nil || !bytes.Equal(answerRetired, answer) {
		t.Fatalf("the repeat after the retirement: %s, %v; want the original %s", answerRetired, err, answer)
	}
}

// A confirmation still routed to a seat with no active holder — a
// retirement whose follow-up transactions a crash cut short, or one an
// older virgo-tui retired without marking what waited on its seat — is
// marked unroutable by the sweep, and the seat's next holder receives it.
func TestSweepMarksUnroutableWhatWaitsOnAnEmptySeat(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	// Routed by who holds a seat, as the hub routes.
	in.queue = queue.New(in.st, queue.Options{Now: in.clk.Now, Seats: Seats{Registry: in.reg}})
	in.cases = New(Config{Store: in.st, Registry: in.reg, Queue: in.queue, Now: in.clk.Now})
	lead := activeLead(t, in)
	deputy := activePersona(t, in, "work/core/deputy", "Zaniah")
	caller := Caller{Principal: confirm.PersonaPrincipal(deputy.Address), PersonaID: deputy.ID}
	res, _, err := in.cases.RequestConfirmation(ctx, Key{}, caller, OperationRequest{Tool: "get_run",
		Target: "run:work/core/t-9/r-1", Shape: "read:meta", CorrelationID: "left-1"})
	mustNil(t, err)
	c := res.Confirmation
	if c == nil || c.Unroutable || c.Authority.String() != lead.Address {
		t.Fatalf("the deputy's request with Spica leading: %+v, want routed to the lead", c)
	}
	// The seat emptied as an older virgo-tui did it: the registry alone.
	_, err = in.reg.Retire(ctx, lead.ID, "moved on")
	mustNil(t, err)
	_, err = in.cases.Sweep(ctx)
	mustNil(t, err)
	got, err := in.queue.Get(ctx, c.ID)
	mustNil(t, err)
	if !got.Unroutable || got.AuthorityBinding != "owning lead work/core/lead: seat empty" {
		t.Fatalf("after the sweep: unroutable=%v %q; want unroutable naming the empty seat", got.Unroutable, got.AuthorityBinding)
	}
	vega := activePersona(t, in, "work/core/lead", "Vega")
	got, err = in.queue.Get(ctx, c.ID)
	mustNil(t, err)
	if got.Unroutable || got.AuthorityBinding != "owning lead work/core/lead held by "+vega.Name {
		t.Fatalf("after Vega's activation: unroutable=%v %q", got.Unroutable, got.AuthorityBinding)
	}
}
