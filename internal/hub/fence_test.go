package hub

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/tools"
)

// fencedHub is a hub with the lead work/core/lead and the deputy
// work/core/deputy, whose generation two runtime instances claimed a
// fence for: older first, then newer.
type fencedHub struct {
	th            *testHub
	deputy        registry.Persona
	token, confID string
	older, newer  coord.Fence
}

func startFencedHub(t *testing.T) fencedHub {
	t.Helper()
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	lead := th.addPersona(t, "work/core/lead", "Spica")
	deputy := th.addPersona(t, "work/core/deputy", "Vindemiatrix")
	ctx := context.Background()
	conf, err := th.runtime(t, lead).RequestConfirmation(ctx, deployOp("fence-lead"))
	mustNil(t, err)
	b, err := os.ReadFile(th.home.GenerationDir(deputy.ID) + "/" + hubapi.TokenFile)
	mustNil(t, err)
	fh := fencedHub{th: th, deputy: deputy, token: strings.TrimSpace(string(b)), confID: conf.Confirmation.ID}
	fh.older, err = th.runtime(t, deputy).ClaimFence(ctx)
	mustNil(t, err)
	fh.newer, err = th.runtime(t, deputy).ClaimFence(ctx)
	mustNil(t, err)
	return fh
}

// send is one request of the deputy's with fence (none when zero): its
// status, code and message.
func (fh fencedHub) send(t *testing.T, method, path, body string, fence coord.Fence) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, "http://hub"+path, strings.NewReader(body))
	mustNil(t, err)
	req.Header.Set("Authorization", "Bearer "+fh.token)
	if fence != coord.NoFence {
		req.Header.Set(hubapi.FenceHeader, strconv.FormatUint(uint64(fence), 10))
	}
	if body != "" && !strings.Contains(path, "/presence/stream") {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := socketHTTP(fh.th.home.Dir).Do(req)
	mustNil(t, err)
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		var ae hubapi.APIError
		b, _ := io.ReadAll(resp.Body)
		_ = json.Unmarshal(b, &ae)
		return resp.StatusCode, ae.Code, ae.Msg
	}
	return resp.StatusCode, "", ""
}

// Every route a persona token may call refuses an instance fenced out by
// a newer one with 409 "fenced" naming the newer instance — reads, lists
// and streams included — and so it does a call presenting no fence once
// one was claimed; only who the token is (GET /v1/whoami) and the claim
// itself (POST /v1/fence) come before an instance holds the fence. The
// newer instance's same calls are not refused as fenced.
func TestFencedInstanceIsRefusedOnEveryRoute(t *testing.T) {
	fh := startFencedHub(t)
	access := documentedAccess(t)
	samples := routeSamples(fh.confID)
	for _, rt := range routes() {
		key := rt.method + " " + rt.pattern
		if acc := access[key]; acc != "rt" && acc != "any" {
			continue
		}
		s := samples[key]
		if unfencedRoute(rt.method, rt.pattern) {
			if key == "GET /v1/whoami" {
				if status, code, msg := fh.send(t, rt.method, s.path, s.body, fh.older); status != http.StatusOK {
					t.Errorf("%s of the older instance: %d %s %s, want it answered", key, status, code, msg)
				}
			}
			continue
		}
		for _, f := range []struct {
			name  string
			fence coord.Fence
		}{{"the older instance's fence", fh.older}, {"no fence", coord.NoFence}, {"a fence never claimed", fh.newer + 1}} {
			status, code, msg := fh.send(t, rt.method, s.path, s.body, f.fence)
			if status != http.StatusConflict || code != "fenced" {
				t.Errorf("%s with %s: %d %q %s, want 409 fenced", key, f.name, status, code, msg)
				continue
			}
			if !strings.Contains(msg, "work/core/deputy") {
				t.Errorf("%s with %s: %q names not the persona", key, f.name, msg)
			}
			if f.fence == fh.older && !strings.Contains(msg, "newer instance") || !strings.Contains(msg, "claimed at") {
				t.Errorf("%s with %s: %q does not name the newer instance and when it claimed the fence", key, f.name, msg)
			}
		}
		if _, code, msg := fh.send(t, rt.method, s.path, s.body, fh.newer); code == "fenced" {
			t.Errorf("%s of the newer instance refused as fenced: %s", key, msg)
		}
	}
}

// Every tool of the tool table, called by a fenced-out instance, is
// refused with "fenced" before anything else is looked at: a read, a
// write and a runtime tool (the workspace's) alike, and whatever the
// arguments.
func TestFencedInstanceIsRefusedOnEveryTool(t *testing.T) {
	fh := startFencedHub(t)
	for _, tool := range tools.All() {
		for _, body := range []string{`{"arguments":{}}`, `{"arguments":{"path":"NOTES.md","message":"m-1","text":"x"}}`} {
			status, code, msg := fh.send(t, "POST", "/v1/tools/"+tool.Name, body, fh.older)
			if status != http.StatusConflict || code != "fenced" {
				t.Errorf("%s %s by the older instance: %d %q %s, want 409 fenced", tool.Name, body, status, code, msg)
			}
		}
	}
}

// A message stream of the instance holding the fence ends within a second
// of a newer instance claiming it: a stale duplicate does not go on
// reading the inbox live.
func TestFencedInstanceMessageStreamEnds(t *testing.T) {
	fh := startFencedHub(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := fh.th.runtime(t, fh.deputy)
	c.UseFence(fh.newer)
	s, err := c.OpenMessageStream(ctx, "")
	mustNil(t, err)
	defer s.Close()
	next := make(chan error, 1)
	go func() {
		_, err := s.Next()
		next <- err
	}()
	_, err = fh.th.runtime(t, fh.deputy).ClaimFence(ctx)
	mustNil(t, err)
	select {
	case err := <-next:
		if err == nil {
			t.Fatal("the fenced-out stream delivered a message")
		}
	case <-time.After(time.Second + 500*time.Millisecond):
		t.Fatal("the fenced-out instance's message stream is still open")
	}
}
