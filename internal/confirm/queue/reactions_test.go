package queue

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// record commits requester's outcome o of id as a reaction does: the plan
// of PlanOutcome in one transaction.
func record(ctx context.Context, st store.Store, r *Reactions, requester confirm.Principal, id string, o confirm.Outcome) error {
	plan, err := r.PlanOutcome(requester, id, o)
	if err != nil {
		return err
	}
	_, err = plan.Commit(ctx, st)
	return err
}

// Spec: "Human-surface reactions return a definitive terminal result:
// applied: true or applied: false with a reason. unknown is not a terminal
// success and remains retryable under the same correlation id."
func TestDefinitiveReactionOutcomes(t *testing.T) {
	ctx := context.Background()
	s, _ := openStore(t)
	r := NewReactions(s, newClock().Now)
	me := confirm.PersonaPrincipal("root/secretary")
	// Unknown is never recorded: a retry under the id decides again.
	if plan, err := r.PlanOutcome(me, "react-1", confirm.Unknown); err != nil || !plan.Empty() {
		t.Fatalf("unknown planned %+v, %v; want nothing", plan, err)
	}
	if o, err := r.Get(ctx, me, "react-1", "h-1", "ack"); err != nil || o.Known {
		t.Fatalf("after an unknown: %+v, %v", o, err)
	}
	if err := record(ctx, s, r, me, "react-1", confirm.Applied("h-1", "ack")); err != nil {
		t.Fatal(err)
	}
	// Terminal now: a second outcome under the id does not commit.
	if err := record(ctx, s, r, me, "react-1", confirm.NotApplied("h-1", "ack", "would change the result")); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a second outcome: %v, want ErrConflict", err)
	}
	if got, _ := r.Get(ctx, me, "react-1", "h-1", "ack"); !got.Known || !got.Applied || got.At.IsZero() {
		t.Fatalf("stored: %+v", got)
	}
	// applied:false carries its reason and is as terminal.
	if err := record(ctx, s, r, me, "react-2", confirm.NotApplied("h-1", "ack", "message deleted")); err != nil {
		t.Fatal(err)
	}
	if o, _ := r.Get(ctx, me, "react-2", "h-1", "ack"); o.Applied || o.Reason != "message deleted" || !o.Known {
		t.Fatalf("not applied: %+v", o)
	}
	// Concurrent outcomes under one id: exactly one commits.
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := confirm.Applied("h-1", "ack")
			if i%2 == 0 {
				o = confirm.NotApplied("h-1", "ack", "even")
			}
			errs[i] = record(ctx, s, r, me, "react-3", o)
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, store.ErrConflict):
			t.Fatal(err)
		}
	}
	if won != 1 {
		t.Fatalf("%d outcomes committed under one id, want 1", won)
	}
}

// Reaction outcomes are keyed per requester, as confirmations are: two
// personas using the same correlation id get independent outcomes, and
// neither can read or settle the other's.
func TestReactionOutcomesArePerRequester(t *testing.T) {
	ctx := context.Background()
	s, _ := openStore(t)
	r := NewReactions(s, newClock().Now)
	secretary, coordinator := confirm.PersonaPrincipal("root/secretary"), confirm.PersonaPrincipal("work/coordinator")
	if err := record(ctx, s, r, secretary, "react-1", confirm.Applied("h-1", "ack")); err != nil {
		t.Fatal(err)
	}
	if o, err := r.Get(ctx, coordinator, "react-1", "h-1", "ack"); err != nil || o.Known {
		t.Fatalf("coordinator sees the secretary's outcome: %+v, %v", o, err)
	}
	if err := record(ctx, s, r, coordinator, "react-1", confirm.NotApplied("h-1", "ack", "message deleted")); err != nil {
		t.Fatalf("coordinator: %v; want its own terminal result", err)
	}
	if o, _ := r.Get(ctx, secretary, "react-1", "h-1", "ack"); !o.Applied {
		t.Fatalf("the secretary's outcome changed: %+v", o)
	}
	if _, err := r.PlanOutcome(confirm.Principal{}, "react-1", confirm.Applied("h-1", "ack")); !errors.Is(err, confirm.ErrBadPrincipal) {
		t.Fatalf("no requester: %v, want ErrBadPrincipal", err)
	}
	if _, err := r.PlanOutcome(secretary, "bad id/", confirm.Applied("h-1", "ack")); err == nil {
		t.Fatal("a malformed correlation id was planned")
	}
}

// A terminal outcome names the reaction it is of, and its correlation id
// answers that reaction alone: asking another item or reaction under it is
// ErrCorrelationReuse naming the recorded one — never its "applied".
func TestReactionOutcomeIsBoundToItsReaction(t *testing.T) {
	ctx := context.Background()
	s, _ := openStore(t)
	r := NewReactions(s, newClock().Now)
	henry := confirm.Principal{Kind: confirm.PrincipalHuman, Name: "henry"}
	if err := record(ctx, s, r, henry, "r-1", confirm.Applied("h-3", "thumbs_up")); err != nil {
		t.Fatal(err)
	}
	if o, err := r.Get(ctx, henry, "r-1", "h-3", "thumbs_up"); err != nil || !o.Applied || o.Item != "h-3" || o.Reaction != "thumbs_up" {
		t.Fatalf("the recorded reaction: %+v, %v", o, err)
	}
	for _, ask := range [][2]string{{"h-3", "thumbs_down"}, {"h-4", "thumbs_up"}} {
		o, err := r.Get(ctx, henry, "r-1", ask[0], ask[1])
		if !errors.Is(err, confirm.ErrCorrelationReuse) || o.Known || !strings.Contains(err.Error(), "thumbs_up on h-3: applied") {
			t.Fatalf("%s on %s under r-1: %+v, %v; want ErrCorrelationReuse naming thumbs_up on h-3", ask[1], ask[0], o, err)
		}
	}
}

// Spec: "applied: false with a reason". An outcome that is not applied
// and gives no reason, or names no reaction, is never recorded.
func TestNotAppliedCarriesAReason(t *testing.T) {
	r := NewReactions(nil, newClock().Now)
	me := confirm.PersonaPrincipal("root/secretary")
	for _, reason := range []string{"", "  \n"} {
		if _, err := r.PlanOutcome(me, "react-1", confirm.NotApplied("h-1", "ack", reason)); !errors.Is(err, confirm.ErrNoOutcomeReason) {
			t.Fatalf("not applied with reason %q: %v, want ErrNoOutcomeReason", reason, err)
		}
	}
	for _, o := range []confirm.Outcome{confirm.Applied("", "ack"), confirm.Applied("h-1", ""), {Known: true, Applied: true}} {
		if _, err := r.PlanOutcome(me, "react-1", o); !errors.Is(err, confirm.ErrOutcomeUnbound) {
			t.Fatalf("%+v: %v, want ErrOutcomeUnbound", o, err)
		}
	}
}
