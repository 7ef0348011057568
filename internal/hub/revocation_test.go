package hub

import (
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
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
