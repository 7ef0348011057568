package queue

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/confirm/confirmtest"

	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
)

// openStore opens a real bbolt file in the test's directory.
func openStore(t testing.TB) (*boltstore.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "virgo", "virgo.db")
	s, err := boltstore.Open(path, boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

// fakeClock is a settable clock for expiry tests.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock { return &fakeClock{t: time.Date(2026, 8, 4, 9, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// seats is a SeatHolders of fixed holders.
type seats map[string]string

func (s seats) ActiveHolder(_ context.Context, addr string) (string, bool, error) {
	h, ok := s[addr]
	return h, ok, nil
}

// requestActivation queues a generation's activation alone, as the
// registration use case does together with the generation itself.
func requestActivation(t *testing.T, q *Queue, st *stamp.Stamp, hash, diff string) (confirm.Result, error) {
	t.Helper()
	ctx := context.Background()
	res, plan, err := q.PlanActivation(ctx, st, hash, diff)
	if err != nil || plan.Empty() {
		return res, err
	}
	_, err = plan.Commit(ctx, q.st)
	return res, err
}

// commit commits what plan plans in one transaction, planning again after
// a conflicting concurrent writer, as the use cases do around the queue's
// Plan* methods (without their conditions on the persona's record).
func commit[R any](ctx context.Context, st store.Store, plan func() (R, store.Plan, error)) (R, error) {
	for {
		if err := ctx.Err(); err != nil {
			var zero R
			return zero, err
		}
		res, p, err := plan()
		if err != nil || p.Empty() {
			return res, err
		}
		if _, err = p.Commit(ctx, st); errors.Is(err, store.ErrConflict) {
			continue
		}
		return res, err
	}
}

// commitRequest commits what PlanRequest plans.
func commitRequest(ctx context.Context, q *Queue, caller confirm.Principal, p *confirm.Policy, op confirm.Operation, corr string) (confirm.Result, error) {
	return commit(ctx, q.st, func() (confirm.Result, store.Plan, error) { return q.PlanRequest(ctx, caller, p, op, corr) })
}

// commitRetirement commits what PlanRetirement plans.
func commitRetirement(ctx context.Context, q *Queue, askedBy confirm.Principal, st *stamp.Stamp, hash, reason string) (confirm.Result, error) {
	return commit(ctx, q.st, func() (confirm.Result, store.Plan, error) { return q.PlanRetirement(ctx, askedBy, st, hash, reason) })
}

// commitDecide commits what PlanDecide plans and answers the confirmation
// as committed, with the decider's answer (Decided.Err).
func commitDecide(ctx context.Context, q *Queue, decider confirm.Principal, id string, approve bool, remember confirm.Remember, reason string) (*confirm.Confirmation, error) {
	var d Decided
	_, err := commit(ctx, q.st, func() (struct{}, store.Plan, error) {
		var err error
		d, err = q.PlanDecide(ctx, decider, id, approve, remember, reason)
		return struct{}{}, d.Plan, err
	})
	if err != nil {
		return d.Confirmation, err
	}
	return d.Confirmation, d.Err()
}

// commitApprove approves confirmation id; see commitDecide.
func commitApprove(ctx context.Context, q *Queue, decider confirm.Principal, id string, remember confirm.Remember) (*confirm.Confirmation, error) {
	return commitDecide(ctx, q, decider, id, true, remember, "")
}

// commitDeny denies confirmation id with a reason; see commitDecide.
func commitDeny(ctx context.Context, q *Queue, decider confirm.Principal, id, reason string, remember confirm.Remember) (*confirm.Confirmation, error) {
	return commitDecide(ctx, q, decider, id, false, remember, reason)
}

var henry = confirm.Principal{Kind: confirm.PrincipalHuman, Name: "henry"}

// policyFor indexes a fresh stamp of address.
func policyFor(t testing.TB, address string, opts confirm.Options, extraMutable ...string) *confirm.Policy {
	t.Helper()
	st, hash := confirmtest.BuildStamp(t, address, 1, extraMutable...)
	p, err := confirm.NewPolicy(st, hash, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// op builds an operation of p's persona for tool (its handler action from
// the stamp), on the target text form, with shape.
func op(t testing.TB, p *confirm.Policy, tool, target string, shape stamp.Shape) confirm.Operation {
	t.Helper()
	tg, err := confirm.ParseTarget(target)
	if err != nil {
		t.Fatalf("target %s: %v", target, err)
	}
	action, ok := p.Tool(tool)
	if !ok {
		action = "unknown." + tool
	}
	return confirm.Operation{Persona: p.Address(), Generation: p.Stamp().Persona.Generation, Tool: tool, HandlerAction: action,
		Target: tg, Shape: shape}
}
