package hub

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// A runtime waits for its confirmation's decision on the hub instead of
// asking again and again: GET /v1/confirmations/{id}?wait= answers as soon
// as the operator decides, answers it still pending when the wait passes,
// refuses a wait out of its range by name, and counts a held wait against
// the token's streams; nothing is left behind for ids waited on.
func TestAWaitForADecisionAnswersWhenItIsDecided(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	ctx := context.Background()
	lead := th.addPersona(t, "work/core/lead", "Spica")
	rt, henry := th.runtime(t, lead), th.operator(t, "henry")
	ask := func(i int) string {
		t.Helper()
		r, err := rt.RequestConfirmation(ctx, hubapi.OperationRequest{Tool: "publish_deployment_v1",
			Target: fmt.Sprintf("external:https://example.org/%d", i), Shape: "deploy", CorrelationID: fmt.Sprintf("wait-%d", i)})
		mustNil(t, err)
		if r.Confirmation == nil {
			t.Fatalf("request %d: %+v, want a pending confirmation", i, r)
		}
		return r.Confirmation.ID
	}

	id := ask(1)
	type waited struct {
		c   *confirm.Confirmation
		err error
		at  time.Time
	}
	got := make(chan waited, 1)
	go func() {
		c, err := rt.WaitConfirmation(ctx, id, 50*time.Second)
		got <- waited{c, err, time.Now()}
	}()
	time.Sleep(200 * time.Millisecond) // the wait is held by now
	select {
	case w := <-got:
		t.Fatalf("the wait answered before the decision: %+v, %v", w.c, w.err)
	default:
	}
	decided := time.Now()
	_, err := henry.Decide(ctx, id, hubapi.DecideRequest{Approve: true})
	mustNil(t, err)
	w := <-got
	mustNil(t, w.err)
	if w.c.State != confirm.StateApproved || w.at.Sub(decided) > 5*time.Second {
		t.Fatalf("the wait answered %s %s after the decision, want approved at once", w.c.State, w.at.Sub(decided))
	}

	// Nobody decides: the wait ends pending.
	id = ask(2)
	start := time.Now()
	c, err := rt.WaitConfirmation(ctx, id, 300*time.Millisecond)
	mustNil(t, err)
	if c.State != confirm.StatePending || time.Since(start) < 300*time.Millisecond {
		t.Fatalf("an undecided wait: %s after %s, want pending after the wait", c.State, time.Since(start))
	}
	// A decided one is answered at once.
	_, err = henry.Decide(ctx, id, hubapi.DecideRequest{Approve: false, Reason: "not now"})
	mustNil(t, err)
	if c, err = rt.WaitConfirmation(ctx, id, time.Minute); err != nil || c.State != confirm.StateDenied {
		t.Fatalf("a decided one: %+v, %v", c, err)
	}

	tok, err := hubapi.OperatorToken(th.home.Dir, "henry")
	mustNil(t, err)
	for _, bad := range []string{"0s", "-1s", "61s", "soon"} {
		resp, ae := rawRequest(t, th.home.Dir, "GET", "/v1/confirmations/"+id+"?wait="+bad, tok, nil)
		if resp.StatusCode != http.StatusBadRequest || ae.Code != "bad_query" || !strings.Contains(ae.Msg, "wait") {
			t.Fatalf("wait=%s: %s %q %q, want 400 bad_query naming wait", bad, resp.Status, ae.Code, ae.Msg)
		}
	}

	// Held waits count against the token's streams.
	id = ask(3)
	limit := hubapi.LimitOf("streams_per_token").Max
	hold, cancel := context.WithCancel(ctx)
	held := make(chan error, limit)
	for range limit {
		go func() { _, err := rt.WaitConfirmation(hold, id, time.Minute); held <- err }()
	}
	waitFor(t, "the waits are held", func() bool {
		th.hub.decided.mu.Lock()
		defer th.hub.decided.mu.Unlock()
		w := th.hub.decided.waiting[id]
		return w != nil && w.n == limit
	})
	if _, err := rt.WaitConfirmation(ctx, id, time.Minute); !errors.Is(err, hubapi.ErrTooManyStreams) {
		t.Fatalf("wait %d beside %d held: %v, want ErrTooManyStreams", limit+1, limit, err)
	}
	cancel()
	for range limit {
		<-held
	}
	waitFor(t, "the ended waits leave nothing behind", func() bool {
		th.hub.decided.mu.Lock()
		defer th.hub.decided.mu.Unlock()
		return len(th.hub.decided.waiting) == 0
	})
}
