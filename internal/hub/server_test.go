package hub

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
)

func TestSocketIsPrivate(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	fi, err := os.Stat(hubapi.SocketPath(th.home.Dir))
	mustNil(t, err)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v, want 0600", fi.Mode().Perm())
	}
	di, err := os.Stat(hubapi.RunDir(th.home.Dir))
	mustNil(t, err)
	if di.Mode().Perm() != 0o700 {
		t.Fatalf("run dir mode %v, want 0700", di.Mode().Perm())
	}
	tok, err := os.Stat(hubapi.OperatorTokenPath(th.home.Dir, "henry"))
	if err == nil {
		t.Fatalf("operator token exists before first use: %v", tok.Mode())
	}
	th.operator(t, "henry")
	tok, err = os.Stat(hubapi.OperatorTokenPath(th.home.Dir, "henry"))
	mustNil(t, err)
	if tok.Mode().Perm() != 0o600 {
		t.Fatalf("operator token mode %v, want 0600", tok.Mode().Perm())
	}
}

func TestSecondHubRefusedNamingThePID(t *testing.T) {
	home := shortHome(t)
	startHub(t, home, Config{}, Timeouts{})
	err := Serve(context.Background(), ServeOptions{Home: home})
	if !errors.Is(err, hubapi.ErrHubRunning) {
		t.Fatalf("second hub: %v, want hubapi.ErrHubRunning", err)
	}
	if want := fmt.Sprintf("pid %d", os.Getpid()); !strings.Contains(err.Error(), want) {
		t.Fatalf("refusal %q does not name %q", err, want)
	}
}

func TestTwoClientsSeeEachOthersChangesInOrder(t *testing.T) {
	th := startHub(t, shortHome(t), Config{Coalesce: time.Millisecond}, Timeouts{})
	lead := th.addPersona(t, "work/core/lead", "Spica")
	deputy := th.addPersona(t, "work/core/deputy", "Vindemiatrix")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	a, b := th.operator(t, "henry"), th.operator(t, "ada")
	sa, err := a.Snapshot(ctx)
	mustNil(t, err)
	sb, err := b.Snapshot(ctx)
	mustNil(t, err)
	subA, subB := a.Subscribe(ctx, sa.Seq), b.Subscribe(ctx, sb.Seq)

	rl, rd := th.runtime(t, lead), th.runtime(t, deputy)
	for i := 0; i < 20; i++ {
		act := fmt.Sprintf("step %d", i)
		_, err := rl.SetPresence(ctx, &act, nil)
		mustNil(t, err)
		_, err = rd.SetPresence(ctx, &act, nil)
		mustNil(t, err)
	}
	// an operator's change: A retires the deputy; B must see it too
	r, err := a.RequestRetirement(ctx, "work/core/deputy", "task done")
	mustNil(t, err)
	_, err = th.operator(t, "henry").Decide(ctx, r.Confirmation.ID, hubapi.DecideRequest{Approve: true})
	mustNil(t, err)

	sawRetired := func(cs []hubapi.Change) bool {
		for _, c := range cs {
			if c.Kind == "persona" && strings.Contains(string(c.Data), `"state":"retired"`) {
				return true
			}
		}
		return false
	}
	gotA := collect(t, subA, 5*time.Second, sawRetired)
	gotB := collect(t, subB, 5*time.Second, sawRetired)
	n := min(len(gotA), len(gotB))
	for i := 0; i < n; i++ {
		if gotA[i].Seq != gotB[i].Seq || gotA[i].ID != gotB[i].ID || gotA[i].Kind != gotB[i].Kind {
			t.Fatalf("position %d: A saw %d %s %s, B saw %d %s %s", i, gotA[i].Seq, gotA[i].Kind, gotA[i].ID, gotB[i].Seq, gotB[i].Kind, gotB[i].ID)
		}
	}
	for _, got := range [][]hubapi.Change{gotA, gotB} {
		for i := 1; i < len(got); i++ {
			if got[i].Seq != got[i-1].Seq+1 {
				t.Fatalf("sequence gap: %d then %d", got[i-1].Seq, got[i].Seq)
			}
		}
	}
	// the last activity of the lead reached both
	var last hubapi.Presence
	for _, c := range gotA {
		if c.Kind == hubapi.KindPresence && c.ID == lead.ID {
			mustNil(t, json.Unmarshal(c.Data, &last))
		}
	}
	if last.Activity != "step 19" {
		t.Fatalf("last lead activity seen %q, want step 19", last.Activity)
	}
}

func TestResumeAfterDisconnectWithoutMissingOrRepeating(t *testing.T) {
	th := startHub(t, shortHome(t), Config{Coalesce: time.Millisecond}, Timeouts{})
	p := th.addPersona(t, "work/core/lead", "Spica")
	op, rt := th.operator(t, "henry"), th.runtime(t, p)
	ctx := context.Background()
	snap, err := op.Snapshot(ctx)
	mustNil(t, err)

	act := func(i int) {
		s := fmt.Sprintf("a%d", i)
		_, err := rt.SetPresence(ctx, &s, nil)
		mustNil(t, err)
		time.Sleep(3 * time.Millisecond) // let each become its own change
	}
	for i := 0; i < 5; i++ {
		act(i)
	}
	c1, cancel1 := context.WithCancel(ctx)
	first := collect(t, op.Subscribe(c1, snap.Seq), 5*time.Second, func(cs []hubapi.Change) bool {
		return len(cs) > 0 && activity(cs[len(cs)-1]) == "a4"
	})
	cancel1() // disconnect
	for i := 5; i < 10; i++ {
		act(i)
	}
	last := first[len(first)-1].Seq
	second := collect(t, op.Subscribe(ctx, last), 5*time.Second, func(cs []hubapi.Change) bool {
		return len(cs) > 0 && activity(cs[len(cs)-1]) == "a9"
	})
	if second[0].Seq != last+1 {
		t.Fatalf("resumed at %d after %d", second[0].Seq, last)
	}
	seen := map[uint64]bool{}
	for _, c := range append(first, second...) {
		if seen[c.Seq] {
			t.Fatalf("seq %d delivered twice", c.Seq)
		}
		seen[c.Seq] = true
	}
}

func activity(c hubapi.Change) string {
	var p hubapi.Presence
	if c.Kind != hubapi.KindPresence || json.Unmarshal(c.Data, &p) != nil {
		return ""
	}
	return p.Activity
}

func TestResumeBelowTheRingAsksForResync(t *testing.T) {
	th := startHub(t, shortHome(t), Config{RingSize: 4, Coalesce: time.Millisecond}, Timeouts{})
	p := th.addPersona(t, "work/core/lead", "Spica")
	op, rt := th.operator(t, "henry"), th.runtime(t, p)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := 0; i < 10; i++ {
		s := fmt.Sprint(i)
		_, err := rt.SetPresence(ctx, &s, nil)
		mustNil(t, err)
		time.Sleep(3 * time.Millisecond)
	}
	got := collect(t, op.Subscribe(ctx, 1), 5*time.Second, func(cs []hubapi.Change) bool { return len(cs) > 0 })
	if got[0].Kind != hubapi.KindResync || got[0].Seq != th.hub.Stream().Head() {
		t.Fatalf("resume below the ring: first batch %+v, want a resync at the head", got[0])
	}
}

func TestSubscribeReconnectsToARestartedHub(t *testing.T) {
	home := shortHome(t)
	th := startHub(t, home, Config{Coalesce: time.Millisecond}, Timeouts{})
	p := th.addPersona(t, "work/core/lead", "Spica")
	op := th.operator(t, "henry")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	snap, err := op.Snapshot(ctx)
	mustNil(t, err)
	sub := op.Subscribe(ctx, snap.Seq)
	th.stop()
	th2 := startHub(t, home, Config{Coalesce: time.Millisecond}, Timeouts{})
	got := collect(t, sub, 10*time.Second, func(cs []hubapi.Change) bool { return len(cs) > 0 })
	if got[0].Kind != hubapi.KindResync || got[0].Epoch != th2.hub.Stream().Epoch() {
		t.Fatalf("after a hub restart: %+v, want a resync of the new epoch", got[0])
	}
	// and it carries on live
	rt := th2.runtime(t, p)
	s := "back"
	_, err = rt.SetPresence(ctx, &s, nil)
	mustNil(t, err)
	collect(t, sub, 5*time.Second, func(cs []hubapi.Change) bool {
		return len(cs) > 0 && activity(cs[len(cs)-1]) == "back"
	})
}

func TestPresenceIsPersistedAcrossRestart(t *testing.T) {
	home := shortHome(t)
	th := startHub(t, home, Config{}, Timeouts{})
	p := th.addPersona(t, "work/core/lead", "Spica")
	s := "reviewing"
	_, err := th.runtime(t, p).SetPresence(context.Background(), &s, &s)
	mustNil(t, err)
	th.stop()
	th2 := startHub(t, home, Config{}, Timeouts{})
	got, ok := th2.hub.Presence().Get(p.ID)
	if !ok || got.Activity != "reviewing" || got.LastSeen.IsZero() {
		t.Fatalf("after restart: %+v", got)
	}
}

func TestRetiredTokenRefusedAtOnce(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	p := th.addPersona(t, "work/core/deputy", "Vindemiatrix")
	rt := th.runtime(t, p)
	ctx := context.Background()
	_, err := rt.Beat(ctx)
	mustNil(t, err)
	th.retire(t, p.Address, "task done")
	_, err = rt.Beat(ctx)
	wantCode(t, err, "retired")
}

func TestRuntimeTokenCannotActAsOperator(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	p := th.addPersona(t, "work/core/lead", "Spica")
	rt := th.runtime(t, p)
	_, err := rt.RequestRetirement(context.Background(), "work/core/lead", "I quit")
	wantCode(t, err, "forbidden")
	_, err = th.hub.Registry().Get(context.Background(), p.ID)
	mustNil(t, err)
	if got, _ := th.hub.Registry().Get(context.Background(), p.ID); got.State != "active" {
		t.Fatalf("persona state %s after a refused retire", got.State)
	}
}

// rawRequest sends bytes on a fresh socket connection and returns the answer.
func rawRequest(t *testing.T, home, method, path, token string, body []byte) (*http.Response, hubapi.APIError) {
	t.Helper()
	conn, err := net.Dial("unix", hubapi.SocketPath(home))
	mustNil(t, err)
	defer conn.Close()
	req, _ := http.NewRequest(method, "http://hub"+path, bytes.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if len(body) > 0 {
		req.Header.Set("Content-Type", "application/json")
	}
	// A hub that refuses a body early may answer and close before the whole
	// body is written: the answer is read all the same.
	_ = req.Write(conn)
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	mustNil(t, err)
	defer resp.Body.Close()
	var ae hubapi.APIError
	b, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(b, &ae)
	return resp, ae
}

func TestBadRequestsGetClearErrorsAndChangeNothing(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	p := th.addPersona(t, "work/core/lead", "Spica")
	th.operator(t, "henry")
	optok, err := hubapi.OperatorToken(th.home.Dir, "henry")
	mustNil(t, err)
	ctx := context.Background()
	mustNil(t, th.hub.Flush(ctx))
	rev0, err := th.hub.st.Rev(ctx)
	mustNil(t, err)

	big := append([]byte(`{"persona":"work/core/lead","reason":"`), bytes.Repeat([]byte("x"), hubapi.MaxBody)...)
	big = append(big, `"}`...)
	cases := []struct {
		name, method, path, token string
		body                      []byte
		status                    int
		code, says                string
	}{
		{"oversized", "POST", "/v1/personas/retire", optok, big, 413, "too_large", "over the 1048576-byte limit"},
		{"malformed", "POST", "/v1/personas/retire", optok, []byte(`{"persona": "work/core/lead", "reason": }`), 400, "malformed_json", "malformed JSON at byte"},
		{"truncated", "POST", "/v1/personas/retire", optok, []byte(`{"persona": "work/co`), 400, "malformed_json", "ends in the middle"},
		{"wrong type", "POST", "/v1/personas/retire", optok, []byte(`{"persona": 7, "reason": "x"}`), 400, "malformed_json", `field "persona"`},
		{"unknown field", "POST", "/v1/personas/retire", optok, []byte(`{"persona": "work/core/lead", "reason": "x", "force": true}`), 400, "malformed_json", `unknown field "force"`},
		{"two objects", "POST", "/v1/personas/retire", optok, []byte(`{"persona": "work/core/lead", "reason": "x"} {}`), 400, "malformed_json", "trailing data"},
		{"empty", "POST", "/v1/personas/retire", optok, nil, 400, "malformed_json", "body is empty"},
		{"unknown version", "GET", "/v2/personas", optok, nil, 404, "unsupported_version", `this hub serves /v1/`},
		{"no version", "GET", "/personas", optok, nil, 404, "unsupported_version", `unknown API version`},
		{"unknown endpoint", "GET", "/v1/nothing", optok, nil, 404, "no_endpoint", "not an endpoint"},
		{"wrong method", "DELETE", "/v1/personas/retire", optok, nil, 405, "method_not_allowed", "use POST"},
		{"no token", "POST", "/v1/personas/retire", "", []byte(`{"persona": "work/core/lead", "reason": "x"}`), 401, "unauthenticated", "Bearer"},
		{"bad token", "POST", "/v1/personas/retire", "vgt_forged", []byte(`{"persona": "work/core/lead", "reason": "x"}`), 401, "unauthenticated", "Bearer"},

		// "Edge answers": each is JSON, immediate and names what is wrong.
		{"null body", "POST", "/v1/personas/retire", optok, []byte(`null`), 400, "malformed_json", "JSON null; send a JSON object"},
		{"duplicate keys", "POST", "/v1/personas/retire", optok, []byte(`{"persona": "x", "reason": "a", "persona": "work/core/lead"}`), 400, "malformed_json", `key "persona" is given twice`},
		{"invalid UTF-8", "POST", "/v1/personas/retire", optok, []byte("{\"persona\": \"work/core/lead\", \"reason\": \"bad \xff\"}"), 400, "invalid_encoding", "at byte 45"},
		{"escape in a reason", "POST", "/v1/personas/retire", optok, []byte(`{"persona": "work/core/lead", "reason": "no\u001b]0;pwned\u0007"}`), 400, "control_text", `field "reason"`},
		{"bidi in a reason", "POST", "/v1/personas/retire", optok, []byte(`{"persona": "work/core/lead", "reason": "ok \u202eevil"}`), 400, "control_text", "U+202E"},
		{"a 1 MB reason", "POST", "/v1/personas/retire", optok, []byte(`{"persona": "work/core/lead", "reason": "` + strings.Repeat("r", 1<<20-64) + `"}`), 400, "too_long", `field "reason"`},
		{"escape in a correlation id", "POST", "/v1/confirmations", optok, []byte(`{"persona": "work/core/lead", "tool": "publish_deployment_v1", "target": "external:https://e.org", "shape": "deploy", "correlation_id": "c\u001b[2J"}`), 400, "control_text", `field "correlation_id"`},
		{"a 40,000-byte correlation id", "POST", "/v1/confirmations", optok, []byte(`{"persona": "work/core/lead", "tool": "publish_deployment_v1", "target": "external:https://e.org", "shape": "deploy", "correlation_id": "` + strings.Repeat("c", 40000) + `"}`), 400, "too_long", `field "correlation_id": text is too long: 40000 bytes, over the 128-byte limit`},
		{"dot-dot path", "GET", "/v1/personas/../audit", optok, nil, 400, "unclean_path", "not a clean path"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, ae := rawRequest(t, th.home.Dir, c.method, c.path, c.token, c.body)
			if c.name == "dot-dot path" && resp.Header.Get("Location") != "" {
				t.Fatalf("redirected to %s", resp.Header.Get("Location"))
			}
			if resp.StatusCode != c.status || ae.Code != c.code || !strings.Contains(ae.Msg, c.says) {
				t.Fatalf("got %d %q %q, want %d %q containing %q", resp.StatusCode, ae.Code, ae.Msg, c.status, c.code, c.says)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Fatalf("error content type %q", ct)
			}
			if c.code == "unsupported_version" && len(ae.Versions) != 1 || c.code == "unsupported_version" && ae.Versions[0] != "v1" {
				t.Fatalf("versions %v, want [v1]", ae.Versions)
			}
		})
	}
	if got, _ := th.hub.Registry().Get(ctx, p.ID); got.State != "active" {
		t.Fatalf("persona %s after bad requests", got.State)
	}
	mustNil(t, th.hub.Flush(ctx))
	if rev, _ := th.hub.st.Rev(ctx); rev != rev0 {
		t.Fatalf("store revision moved from %d to %d: a bad request changed something", rev0, rev)
	}
}

func TestSlowlorisIsCutOff(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{ReadHeader: 300 * time.Millisecond, Read: time.Second})
	conn, err := net.Dial("unix", hubapi.SocketPath(th.home.Dir))
	mustNil(t, err)
	defer conn.Close()
	start := time.Now()
	header := "GET /v1/health HTTP/1.1\r\nHost: hub\r\nX-Slow: " + strings.Repeat("a", 100)
	var werr error
	for i := 0; i < len(header) && werr == nil; i++ {
		_, werr = conn.Write([]byte{header[i]})
		time.Sleep(50 * time.Millisecond) // one byte every 50 ms: headers never finish in time
		if time.Since(start) > 5*time.Second {
			t.Fatal("the server kept a byte-by-byte client for 5 s")
		}
	}
	// the server closed the connection (net/http may first answer a bare
	// "400 Bad Request": the headers it got were never completed)
	conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	b, _ := io.ReadAll(conn)
	if elapsed := time.Since(start); elapsed > 3*time.Second {
		t.Fatalf("connection cut after %v, want about the 300 ms header timeout", elapsed)
	}
	if len(b) > 0 && !strings.HasPrefix(string(b), "HTTP/1.1 4") {
		t.Fatalf("answer to a slow client: %q", b)
	}
	// and the hub still serves others
	_, err = th.operator(t, "henry").Health(context.Background())
	mustNil(t, err)
}

func TestForgedRequesterFieldIsIgnored(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	p := th.addPersona(t, "work/core/lead", "Spica")
	tok, err := os.ReadFile(th.home.GenerationDir(p.ID) + "/" + hubapi.TokenFile)
	mustNil(t, err)
	resp, ae := rawRequest(t, th.home.Dir, "POST", "/v1/presence/set", strings.TrimSpace(string(tok)),
		[]byte(`{"requester":"human:henry","activity":"forging"}`))
	if resp.StatusCode != 200 {
		t.Fatalf("set with a requester field: %d %s", resp.StatusCode, ae.Msg)
	}
	got, _ := th.hub.Presence().Get(p.ID)
	if got.Activity != "forging" {
		t.Fatalf("the token's persona was not the one reported: %+v", got)
	}
}

func TestRoutesDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/api.md")
	mustNil(t, err)
	for _, rt := range routes() {
		want := "`" + rt.method + " " + rt.pattern
		if !strings.Contains(string(doc), want) {
			t.Errorf("docs/api.md does not document %s %s", rt.method, rt.pattern)
		}
	}
}

// A client with a starter starts a hub in-process only when none runs, and
// its Close stops only the hub it started.
func TestAClientStartsAHubOnlyWhenNoneRuns(t *testing.T) {
	home := shortHome(t)
	ctx := context.Background()
	start := hubclient.WithStarter(InProcessOn(home, ""))
	c, err := hubclient.Dial(ctx, home.Dir, hubclient.AsOperator("henry"), start)
	mustNil(t, err)
	h, err := c.Health(ctx)
	mustNil(t, err)
	if h.PID != os.Getpid() {
		t.Fatalf("in-process hub has pid %d, want ours %d", h.PID, os.Getpid())
	}
	// a second console connects to the running hub instead of starting one
	enrol(t, home.Dir, "ada")
	c2, err := hubclient.Dial(ctx, home.Dir, hubclient.AsOperator("ada"), start)
	mustNil(t, err)
	h2, err := c2.Health(ctx)
	mustNil(t, err)
	if h2.Epoch != h.Epoch {
		t.Fatalf("second client reached another hub (epoch %s, want %s)", h2.Epoch, h.Epoch)
	}
	mustNil(t, c2.Close()) // not its hub: nothing stops
	if _, err := c.Health(ctx); err != nil {
		t.Fatalf("the hub stopped when a client that did not start it left: %v", err)
	}
	mustNil(t, c.Close())
	if _, err := hubclient.Dial(ctx, home.Dir, hubclient.AsOperator("henry"), hubclient.WithRetryBudget(0)); !errors.Is(err, hubclient.ErrNoHub) {
		t.Fatalf("after stop: %v, want ErrNoHub", err)
	}
}

// "Content-Length: 10000000000 with a tiny body hangs ~30 s
// instead of an immediate 413"; a body not declared JSON is refused.
func TestEdgeAnswersAreImmediate(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	th.operator(t, "henry")
	optok, err := hubapi.OperatorToken(th.home.Dir, "henry")
	mustNil(t, err)
	conn, err := net.Dial("unix", hubapi.SocketPath(th.home.Dir))
	mustNil(t, err)
	defer conn.Close()
	start := time.Now()
	fmt.Fprintf(conn, "POST /v1/personas/retire HTTP/1.1\r\nHost: hub\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 10000000000\r\n\r\n{}", optok)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	mustNil(t, err)
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(b), `"too_large"`) {
		t.Fatalf("a 10 GB Content-Length: %s %s, want 413 too_large", resp.Status, b)
	}
	if took := time.Since(start); took > time.Second {
		t.Fatalf("the 413 took %v, want it at once", took)
	}

	for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded"} {
		req, _ := http.NewRequest("POST", "http://hub/v1/personas/retire", strings.NewReader(`{"persona":"x","reason":"y"}`))
		req.Header.Set("Authorization", "Bearer "+optok)
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		resp, err := socketHTTP(th.home.Dir).Do(req)
		mustNil(t, err)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnsupportedMediaType || !strings.Contains(string(b), "application/json") {
			t.Fatalf("Content-Type %q: %s %s, want 415 naming application/json", ct, resp.Status, b)
		}
	}
}
