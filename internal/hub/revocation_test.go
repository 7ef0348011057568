package hub

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// openStream opens GET /v1/stream with token over the hub's socket and
// returns a channel that is closed when the hub ends the stream.
func openStream(t *testing.T, home, token string) <-chan struct{} {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, "GET", "http://hub/v1/stream?after=0", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := socketHTTP(home).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("open stream: %s", resp.Status)
	}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
	}()
	return ended
}

// wantEndsWithin fails unless ended closes within d.
func wantEndsWithin(t *testing.T, what string, ended <-chan struct{}, d time.Duration) {
	t.Helper()
	select {
	case <-ended:
	case <-time.After(d):
		t.Fatalf("%s: the stream still delivers after %v", what, d)
	}
}

// "A revoked operator keeps listening. After rm
// operators/bob.token, new requests get 401, but bob's open /v1/stream keeps
// delivering confirmations and summaries." Now it ends within one second.
func TestRevokedOperatorStreamEndsWithinASecond(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	enrol(t, th.home.Dir, "henry")
	enrol(t, th.home.Dir, "bob")
	bob, err := hubapi.OperatorToken(th.home.Dir, "bob")
	mustNil(t, err)
	ended := openStream(t, th.home.Dir, bob)
	henry, err := hubapi.OperatorToken(th.home.Dir, "henry")
	mustNil(t, err)
	kept := openStream(t, th.home.Dir, henry)
	mustNil(t, os.Remove(hubapi.OperatorTokenPath(th.home.Dir, "bob")))
	wantEndsWithin(t, "deleted operator token", ended, time.Second)
	select {
	case <-kept:
		t.Fatal("another operator's stream ended too")
	case <-time.After(2 * revocationCheck):
	}
	if resp, _ := rawRequest(t, th.home.Dir, "GET", "/v1/stream?after=0", bob, nil); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("reopening with the deleted token: %s, want 401", resp.Status)
	}
}

// A rotated operator token (file replaced) ends the old token's stream.
func TestRotatedOperatorStreamEnds(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	enrol(t, th.home.Dir, "henry")
	enrol(t, th.home.Dir, "bob")
	old, err := hubapi.OperatorToken(th.home.Dir, "bob")
	mustNil(t, err)
	ended := openStream(t, th.home.Dir, old)
	mustNil(t, os.Remove(hubapi.OperatorTokenPath(th.home.Dir, "bob")))
	_, err = hubapi.EnrolOperator(th.home.Dir, "bob", hubapi.NoUID)
	mustNil(t, err)
	wantEndsWithin(t, "rotated operator token", ended, time.Second)
}

// Retiring a persona ends its open beat stream within one second, with
// the retirement named, though the runtime keeps the body open.
func TestRetiredPersonaBeatStreamEnds(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	p := th.addPersona(t, "work/core/lead", "Spica")
	tok, err := os.ReadFile(th.home.GenerationDir(p.ID) + "/" + hubapi.TokenFile)
	mustNil(t, err)
	body, feed := io.Pipe()
	defer feed.Close()
	req, err := http.NewRequest("POST", "http://hub/v1/presence/stream", body)
	mustNil(t, err)
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
	answered := make(chan *http.Response, 1)
	go func() {
		resp, err := socketHTTP(th.home.Dir).Do(req)
		if err != nil {
			close(answered)
			return
		}
		answered <- resp
	}()
	_, err = feed.Write([]byte("\n")) // one beat: the stream is open
	mustNil(t, err)
	th.retire(t, "work/core/lead", "done")
	select {
	case resp, ok := <-answered:
		if !ok {
			t.Fatal("the beat stream failed without an answer")
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusConflict || !strings.Contains(string(b), `"code":"retired"`) {
			t.Fatalf("beat stream of a retired persona: %s %s, want 409 retired", resp.Status, b)
		}
	case <-time.After(time.Second + 500*time.Millisecond):
		t.Fatal("the retired persona's beat stream is still open")
	}
}

// An open stream costs nothing while nothing that could revoke it changes:
// no stream asks on a timer whether its token still holds, it is woken by
// the change. Removing the operator through the API then ends every one of
// their streams within the same second as before, and another operator's
// stream lives on.
func TestOpenStreamsAreWokenNotPolled(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	enrol(t, th.home.Dir, "henry")
	enrol(t, th.home.Dir, "bob")
	bob, err := hubapi.OperatorToken(th.home.Dir, "bob")
	mustNil(t, err)
	henry, err := hubapi.OperatorToken(th.home.Dir, "henry")
	mustNil(t, err)
	n := hubapi.LimitOf("streams_per_token").Max
	ended := make([]<-chan struct{}, n)
	for i := range ended {
		ended[i] = openStream(t, th.home.Dir, bob)
	}
	kept := openStream(t, th.home.Dir, henry)
	// Each stream authorizes its caller once as it opens (a change applied
	// between the request's check and the stream's start is not missed),
	// and again when a change wakes it: the two enrolments' events may
	// reach the streams already open. Wait until the count has settled —
	// no check for a whole revocationCheck — so that what follows counts
	// only what a poll would add.
	deadline := time.Now().Add(5 * time.Second)
	for th.hub.streamChecks.Load() < int64(n+1) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	opened := th.hub.streamChecks.Load()
	for time.Now().Before(deadline) {
		time.Sleep(revocationCheck)
		now := th.hub.streamChecks.Load()
		if now == opened {
			break
		}
		opened = now
	}
	time.Sleep(4 * revocationCheck)
	if got := th.hub.streamChecks.Load(); got != opened {
		t.Fatalf("%d open streams authorized their callers %d times in %v while nothing changed, want 0", n+1, got-opened, 4*revocationCheck)
	}
	if resp, ae := rawRequest(t, th.home.Dir, "DELETE", "/v1/operators/bob", henry, nil); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("remove bob: %s %+v", resp.Status, ae)
	}
	for i, e := range ended {
		wantEndsWithin(t, fmt.Sprintf("stream %d of %d of a removed operator", i+1, n), e, time.Second)
	}
	select {
	case <-kept:
		t.Fatal("another operator's stream ended too")
	case <-time.After(2 * revocationCheck):
	}
}

// A generation's stamp file removed while its runtime holds a stream open
// makes it not standing, and ends the stream within a second — no store
// watch reports a file, so the hub's revocation check proves it.
func TestRemovedStampEndsOpenStream(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	p := th.addPersona(t, "work/core/lead", "Spica")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := th.runtime(t, p).OpenMessageStream(ctx, "")
	mustNil(t, err)
	defer s.Close()
	next := make(chan error, 1)
	go func() {
		_, err := s.Next()
		next <- err
	}()
	mustNil(t, os.Remove(th.hub.stampPath(p.ID)))
	select {
	case err := <-next:
		if err == nil {
			t.Fatal("the stream of a generation not standing delivered a message")
		}
	case <-time.After(time.Second + 500*time.Millisecond):
		t.Fatal("the stream of a generation whose stamp file is gone is still open")
	}
}

// A change concerning one generation wakes its streams only: a newer
// instance of the lead claiming its fence ends the lead's open stream,
// and the deputy's stream is not asked again — a burst of runtimes
// connecting does not make every stream of the hub check its caller.
func TestAFenceClaimWakesItsGenerationsStreamsOnly(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	lead := th.addPersona(t, "work/core/lead", "Spica")
	deputy := th.addPersona(t, "work/core/deputy", "Vindemiatrix")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ended := make(map[string]chan error)
	for _, p := range []registry.Persona{lead, deputy} {
		s, err := th.runtime(t, p).OpenMessageStream(ctx, "")
		mustNil(t, err)
		defer s.Close()
		next := make(chan error, 1)
		go func() {
			_, err := s.Next()
			next <- err
		}()
		ended[p.Address] = next
	}
	deadline := time.Now().Add(5 * time.Second)
	for th.hub.streamChecks.Load() < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(revocationCheck) // each stream's first check is over
	opened := th.hub.streamChecks.Load()
	_, err := th.runtime(t, lead).ClaimFence(ctx)
	mustNil(t, err)
	select {
	case err := <-ended[lead.Address]:
		if err == nil {
			t.Fatal("the lead's fenced-out stream delivered a message")
		}
	case <-time.After(time.Second + 500*time.Millisecond):
		t.Fatal("the lead's fenced-out stream is still open")
	}
	time.Sleep(2 * revocationCheck)
	if got := th.hub.streamChecks.Load() - opened; got != 1 {
		t.Fatalf("a fence claim of the lead made %d stream checks, want 1 (the lead's stream, not the deputy's)", got)
	}
	select {
	case err := <-ended[deputy.Address]:
		t.Fatalf("the deputy's stream ended: %v", err)
	default:
	}
}

// A stream that ends leaves nothing behind in the hub's wakeups: the
// generations that once held streams, however many over a hub's life, do
// not each keep a channel until something concerning them changes.
func TestEndedStreamsLeaveNoWakeup(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	lead := th.addPersona(t, "work/core/lead", "Spica")
	deputy := th.addPersona(t, "work/core/deputy", "Vindemiatrix")
	for _, p := range []registry.Persona{lead, deputy} {
		before := th.hub.streamChecks.Load()
		s, err := th.runtime(t, p).OpenMessageStream(ctx, "")
		mustNil(t, err)
		for th.hub.streamChecks.Load() == before && ctx.Err() == nil {
			time.Sleep(10 * time.Millisecond) // its first check: it waits now
		}
		mustNil(t, s.Close())
	}
	waiting := func() int {
		th.hub.woken.mu.Lock()
		defer th.hub.woken.mu.Unlock()
		return len(th.hub.woken.chs)
	}
	for waiting() > 0 && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	if n := waiting(); n > 0 {
		t.Fatalf("%d keys still hold a wakeup after every stream ended", n)
	}
}
