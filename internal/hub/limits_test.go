package hub

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// "There is no cap on pending confirmations per persona (16,000
// queued in ~20 s)." A persona asks up to its limit; then it is refused with
// too_many_pending, while a retry of one it asked still joins.
func TestPendingConfirmationsPerPersonaAreBounded(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	lead := th.runtime(t, th.addPersona(t, "work/core/lead", "Spica"))
	ctx := context.Background()
	limit := hubapi.LimitOf("pending_per_persona").Max
	for i := range limit {
		res, err := lead.RequestConfirmation(ctx, floodOp(i))
		mustNil(t, err)
		if res.Status != confirm.StatusUnknown {
			t.Fatalf("request %d: %s, want pending", i, res.Status)
		}
	}
	_, err := lead.RequestConfirmation(ctx, floodOp(limit))
	ae := wantCode(t, err, "too_many_pending")
	if !strings.Contains(ae.Msg, "work/core/lead has 64 confirmations pending") {
		t.Fatalf("refusal %q does not name the persona and the limit", ae.Msg)
	}
	if res, err := lead.RequestConfirmation(ctx, floodOp(0)); err != nil || res.Status != confirm.StatusUnknown {
		t.Fatalf("a retry of a pending request: %+v, %v; want it joined", res, err)
	}
	cs, err := th.operator(t, "henry").Confirmations(ctx, false)
	mustNil(t, err)
	if len(cs) != limit {
		t.Fatalf("%d confirmations pending, want the limit %d", len(cs), limit)
	}
}

// One token holds at most streams_per_token open streams.
func TestOpenStreamsPerTokenAreBounded(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	enrol(t, th.home.Dir, "henry")
	tok, err := hubapi.OperatorToken(th.home.Dir, "henry")
	mustNil(t, err)
	limit := hubapi.LimitOf("streams_per_token").Max
	for range limit {
		openStream(t, th.home.Dir, tok)
	}
	resp, ae := rawRequest(t, th.home.Dir, "GET", "/v1/stream?after=0", tok, nil)
	if resp.StatusCode != http.StatusTooManyRequests || ae.Code != "too_many_streams" {
		t.Fatalf("stream %d: %s %q, want 429 too_many_streams", limit+1, resp.Status, ae.Code)
	}
}

// "A lead denying its deputy's requests with ~1 MB reasons, 400
// times: hub RSS 18 MB → 3.1 GB, the database 0 → 1.8 GB." Replayed (100
// times, to keep the suite fast; each is refused the same way): every such
// denial is refused at the edge (a reason is at most 2048 bytes), the
// store does not move, and the hub's heap stays within 64 MiB of where it
// started. The bound on what a persona can store is the limits table:
// pending_per_persona confirmations, each with texts within their limits.
func TestTheOneMegabyteReasonFloodStaysBounded(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	lead := th.addPersona(t, "work/core/lead", "Spica")
	deputy := th.addPersona(t, "work/core/deputy", "Porrima")
	leadTok, err := os.ReadFile(th.home.GenerationDir(lead.ID) + "/" + hubapi.TokenFile)
	mustNil(t, err)
	ctx := context.Background()
	res, err := th.runtime(t, deputy).RequestConfirmation(ctx, hubapi.OperationRequest{Tool: "get_run",
		Target: "run:work/core/t-9/r-1", Shape: "read:meta", CorrelationID: "deputy-1"})
	mustNil(t, err)
	if res.Confirmation == nil {
		t.Fatalf("the deputy's request was not queued to its lead: %+v", res)
	}
	mustNil(t, th.hub.Flush(ctx))
	rev0, err := th.hub.st.Rev(ctx)
	mustNil(t, err)
	size0 := fileSize(t, th.home.DBPath())
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)

	body := []byte(`{"approve":false,"reason":"` + strings.Repeat("x", 1_000_000) + `"}`)
	for i := range 100 {
		resp, ae := rawRequest(t, th.home.Dir, "POST", "/v1/confirmations/"+res.Confirmation.ID+"/decide", strings.TrimSpace(string(leadTok)), body)
		if resp.StatusCode != http.StatusBadRequest || ae.Code != "too_long" {
			t.Fatalf("denial %d with a 1 MB reason: %s %q, want 400 too_long", i, resp.Status, ae.Code)
		}
	}

	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapInuse) - int64(before.HeapInuse); grew > 64<<20 {
		t.Fatalf("the hub's heap grew by %d MiB over the flood, want under 64 MiB", grew>>20)
	}
	mustNil(t, th.hub.Flush(ctx))
	if rev, _ := th.hub.st.Rev(ctx); rev != rev0 {
		t.Fatalf("the flood moved the store from revision %d to %d", rev0, rev)
	}
	if size := fileSize(t, th.home.DBPath()); size > size0 {
		t.Fatalf("the database grew from %d to %d bytes", size0, size)
	}
	c, err := th.operator(t, "henry").Confirmation(ctx, res.Confirmation.ID)
	mustNil(t, err)
	if c.State != confirm.StatePending {
		t.Fatalf("the confirmation is %s after refused denials, want pending", c.State)
	}
}

// floodOp is the i-th of many distinct publications (the same one asked
// again would join its confirmation instead of adding one).
func floodOp(i int) hubapi.OperationRequest {
	return hubapi.OperationRequest{Tool: "publish_deployment_v1", Target: fmt.Sprintf("external:https://example.org/release-%d", i),
		Shape: "deploy", CorrelationID: fmt.Sprintf("flood-%d", i)}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	mustNil(t, err)
	return fi.Size()
}
