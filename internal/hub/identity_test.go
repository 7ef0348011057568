package hub

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// syncBuffer is a log sink safe for the hub's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestTokensNeverAppearInLogsAnswersOrTheStream(t *testing.T) {
	var logs syncBuffer
	th := startHub(t, shortHome(t), Config{Log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}, Timeouts{})
	lead := th.addPersona(t, "work/core/lead", "Spica")
	ctx := context.Background()
	rt := th.runtime(t, lead)
	res, err := rt.RequestConfirmation(ctx, deployOp("leak-1"))
	mustNil(t, err)
	th.retire(t, lead.Address, "done")
	_ = res

	optok, err := hubapi.OperatorToken(th.home.Dir, "henry")
	mustNil(t, err)
	rttok, err := os.ReadFile(th.home.GenerationDir(lead.ID) + "/" + hubapi.TokenFile)
	mustNil(t, err)
	tokens := []string{optok, strings.TrimSpace(string(rttok))}

	var seen bytes.Buffer
	for _, path := range []string{"/v1/snapshot", "/v1/personas?all=true", "/v1/presence", "/v1/confirmations?all=true", "/v1/audit", "/v1/whoami", "/v1/health"} {
		resp, _ := rawRequest(t, th.home.Dir, "GET", path, optok, nil)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d", path, resp.StatusCode)
		}
	}
	// raw answers, read whole
	for _, path := range []string{"/v1/snapshot", "/v1/personas?all=true", "/v1/audit", "/v1/whoami", "/v1/stamps/Spica"} {
		req, _ := http.NewRequest("GET", "http://hub"+path, nil)
		req.Header.Set("Authorization", "Bearer "+optok)
		resp, err := socketHTTP(th.home.Dir).Do(req)
		mustNil(t, err)
		io.Copy(&seen, resp.Body)
		resp.Body.Close()
	}
	// the whole stream so far
	sctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(sctx, "GET", "http://hub/v1/stream?after=0", nil)
	req.Header.Set("Authorization", "Bearer "+optok)
	resp, err := socketHTTP(th.home.Dir).Do(req)
	mustNil(t, err)
	io.Copy(&seen, resp.Body) // ends at the timeout
	resp.Body.Close()
	if !strings.Contains(seen.String(), `"kind":"confirmation"`) {
		t.Fatalf("the stream read did not include the confirmations")
	}
	th.stop()
	for _, tok := range tokens {
		if strings.Contains(seen.String(), tok) {
			t.Errorf("a token appears in an API answer or the stream")
		}
		if strings.Contains(logs.String(), tok) {
			t.Errorf("a token appears in the hub's log")
		}
	}
	if !strings.Contains(logs.String(), "hub serving") {
		t.Fatalf("the log was not captured: %q", logs.String())
	}
}

func TestPresenceIsWrittenInBatches(t *testing.T) {
	const flushEvery = 50 * time.Millisecond
	th := startHub(t, shortHome(t), Config{FlushEvery: flushEvery}, Timeouts{})
	p := th.addPersona(t, "work/core/lead", "Spica")
	ctx := context.Background()
	time.Sleep(120 * time.Millisecond)
	rev0, err := th.hub.st.Rev(ctx)
	mustNil(t, err)
	start := time.Now()
	s, err := th.runtime(t, p).OpenBeatStream(ctx)
	mustNil(t, err)
	for i := 0; i < 5000; i++ {
		mustNil(t, s.Beat())
	}
	r, err := s.Close()
	mustNil(t, err)
	if r.Reports != 5000 {
		t.Fatalf("the hub applied %d of 5000 beats", r.Reports)
	}
	time.Sleep(120 * time.Millisecond)
	rev1, err := th.hub.st.Rev(ctx)
	mustNil(t, err)
	// "persisted in batches, not one disk write per heartbeat": at most one
	// write per flush period while the beats came in. The bound follows the
	// time the beats took, not a fixed count: under the race detector 5000
	// beats take a second or more, and the hub rightly flushes every 50 ms.
	periods := int64(time.Since(start)/flushEvery) + 1
	if writes := rev1 - rev0; writes < 1 || writes > periods || writes > 5000/20 {
		t.Fatalf("5000 heartbeats made %d store transactions over %d flush periods, want at most one a period", writes, periods)
	}
	// The runtime ended its stream itself: it left, offline at once.
	got, _ := th.hub.Presence().Get(p.ID)
	if got.Beats != 5000 || got.State != hubapi.StateOffline {
		t.Fatalf("presence after the beat stream: %+v", got)
	}
}

func TestStreamAsServerSentEvents(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	th.addPersona(t, "work/core/lead", "Spica")
	optok, err := hubapi.OperatorToken(th.home.Dir, "henry")
	mustNil(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://hub/v1/stream?after=0", nil)
	req.Header.Set("Authorization", "Bearer "+optok)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := socketHTTP(th.home.Dir).Do(req)
	mustNil(t, err)
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	if resp.Header.Get(hubapi.EpochHeader) != th.hub.Stream().Epoch() {
		t.Fatalf("epoch header %q", resp.Header.Get(hubapi.EpochHeader))
	}
	b := make([]byte, 4096)
	n, _ := io.ReadAtLeast(resp.Body, b, 64)
	if !strings.HasPrefix(string(b[:n]), "id: 1\nevent: ") || !strings.Contains(string(b[:n]), "\ndata: {") {
		t.Fatalf("first event: %q", b[:n])
	}
}
