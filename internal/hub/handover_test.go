package hub

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
)

// serveTakingOver runs Serve on home with TakeOver asking through an
// operator client, and returns once it serves (or failed), with its stop.
func serveTakingOver(t *testing.T, home string, asker *hubclient.Client, opts ServeOptions) (stop func() error, err error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan struct{}), make(chan error, 1)
	opts.TakeOver = func(ctx context.Context) error { _, err := asker.HandOver(ctx); return err }
	opts.Ready = func(*Hub) { close(ready) }
	go func() { done <- Serve(ctx, opts) }()
	select {
	case <-ready:
		return func() error { cancel(); return <-done }, nil
	case err := <-done:
		cancel()
		return nil, err
	case <-time.After(2 * takeOverWait):
		cancel()
		t.Fatalf("serve neither served nor failed within %v", 2*takeOverWait)
		return nil, nil
	}
}

// A console opened first holds the home with a hub inside itself; `serve`
// started then asks that hub to hand the home over and serves it, and the
// console's client carries on with serve's hub without a failed call. A
// hub started by serve keeps its home: a second serve is refused, naming
// why, and the first goes on serving.
func TestServeTakesTheHomeOverFromAConsolesHub(t *testing.T) {
	home := shortHome(t)
	ctx := context.Background()
	console, err := hubclient.Dial(ctx, home.Dir, hubclient.AsOperator("henry"), hubclient.WithStarter(InProcessOn(home, "")))
	mustNil(t, err)
	t.Cleanup(func() { console.Close() })
	before, err := console.Health(ctx)
	mustNil(t, err)
	ops, err := hubclient.Dial(ctx, home.Dir, hubclient.AsOperator("henry"))
	mustNil(t, err)
	t.Cleanup(func() { ops.Close() })

	stop, err := serveTakingOver(t, home.Dir, ops, ServeOptions{Home: home})
	if err != nil {
		t.Fatalf("serve with a console's hub holding the home: %v; want it taken over", err)
	}
	after, err := console.Health(ctx)
	if err != nil {
		t.Fatalf("the console's client after the handover: %v", err)
	}
	if after.Epoch == before.Epoch {
		t.Fatalf("the console still reaches the hub of epoch %s; want serve's", before.Epoch)
	}
	if _, err := console.Confirmations(ctx, true); err != nil {
		t.Fatalf("the console's calls after the handover: %v", err)
	}

	_, err = serveTakingOver(t, home.Dir, ops, ServeOptions{Home: home})
	if !errors.Is(err, hubapi.ErrHubRunning) || !errors.Is(err, hubapi.ErrNoHandOver) {
		t.Fatalf("a second serve: %v; want ErrHubRunning and ErrNoHandOver", err)
	}
	if h, err := console.Health(ctx); err != nil || h.Epoch != after.Epoch {
		t.Fatalf("serve's hub after a refused takeover: %+v %v; want it serving, epoch %s", h, err, after.Epoch)
	}
	mustNil(t, stop())
}

// While serve takes the home over, no process starts a hub of its own in
// the gap: an in-process start is refused as a running hub is, so its
// client waits for serve's hub instead.
func TestNoHubStartsWhileServeTakesOver(t *testing.T) {
	home := shortHome(t)
	claim, held, err := lockTakeOver(home.Dir, syscall.LOCK_EX)
	mustNil(t, err)
	if held {
		t.Fatal("a fresh home's takeover lock is held")
	}
	_, err = InProcessOn(home, "")(context.Background())
	if !errors.Is(err, hubapi.ErrHubRunning) {
		t.Fatalf("an in-process start during a takeover: %v; want ErrHubRunning", err)
	}
	claim.release()
	stop, err := InProcessOn(home, "")(context.Background())
	mustNil(t, err)
	mustNil(t, stop())
}

// Only an operator hands a console's hub over: a persona's token is
// refused (403 forbidden) and the hub goes on serving. What is in flight
// when an operator asks is not lost: a runtime's wait held for a decision
// is answered with the confirmation still pending, not failed, and the
// same client waits again on serve's hub, where the approval reaches it.
func TestAHandOverLosesNothingAndNoPersonaAsksForIt(t *testing.T) {
	home := shortHome(t)
	th := startHub(t, home, Config{}, Timeouts{})
	lead := th.addPersona(t, "work/core/lead", "Spica")
	th.stop()

	// The console's hub, as InProcessOn starts it, kept at hand.
	ctx := context.Background()
	hubCtx, handOver := context.WithCancel(ctx)
	ready, served := make(chan *Hub, 1), make(chan error, 1)
	go func() {
		served <- Serve(hubCtx, ServeOptions{Home: home, Hub: Config{HandOver: handOver}, Ready: func(h *Hub) { ready <- h }})
	}()
	var console *Hub
	select {
	case console = <-ready:
	case err := <-served:
		t.Fatalf("the console's hub did not start: %v", err)
	}
	t.Cleanup(func() { handOver(); <-served })

	rt, err := hubclient.Dial(ctx, home.Dir, hubclient.WithTokenFile(home.GenerationDir(lead.ID)+"/"+hubapi.TokenFile))
	mustNil(t, err)
	t.Cleanup(func() { rt.Close() })
	ops, err := hubclient.Dial(ctx, home.Dir, hubclient.AsOperator("henry"))
	mustNil(t, err)
	t.Cleanup(func() { ops.Close() })
	res, err := rt.RequestConfirmation(ctx, deployOp("handover-1"))
	mustNil(t, err)
	if res.Confirmation == nil {
		t.Fatalf("the lead's deploy queued nothing: %+v", res)
	}
	id := res.Confirmation.ID

	before, err := rt.Health(ctx)
	mustNil(t, err)
	_, err = rt.HandOver(ctx)
	wantCode(t, err, "forbidden")
	if h, err := ops.Health(ctx); err != nil || h.Epoch != before.Epoch {
		t.Fatalf("the console's hub after a persona asked it to hand over: %+v %v; want it serving, epoch %s", h, err, before.Epoch)
	}

	type answer struct {
		c   *confirm.Confirmation
		err error
	}
	held := make(chan answer, 1)
	go func() {
		c, err := rt.WaitConfirmation(ctx, id, 30*time.Second)
		held <- answer{c, err}
	}()
	holding := func() bool {
		console.openMu.Lock()
		defer console.openMu.Unlock()
		return len(console.open) > 0
	}
	for deadline := time.Now().Add(5 * time.Second); !holding(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the runtime's wait is not held on the console's hub")
		}
	}

	stop, err := serveTakingOver(t, home.Dir, ops, ServeOptions{Home: home})
	if err != nil {
		t.Fatalf("serve with a console's hub holding the home: %v; want it taken over", err)
	}
	t.Cleanup(func() { mustNil(t, stop()) })
	a := <-held
	if a.err != nil || a.c.State != confirm.StatePending {
		t.Fatalf("the wait held across the handover: %+v %v; want it answered, still pending", a.c, a.err)
	}
	if _, err := ops.Decide(ctx, id, hubapi.DecideRequest{Approve: true}); err != nil {
		t.Fatalf("approve on serve's hub: %v", err)
	}
	c, err := rt.WaitConfirmation(ctx, id, 30*time.Second)
	if err != nil || c.State != confirm.StateApproved {
		t.Fatalf("the runtime's wait on serve's hub: %+v %v; want approved", c, err)
	}
}
