package hub

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// routeSample is one request per route of routes(): the path and body a
// test sends with each token kind, and, for a route that names a persona
// or a confirmation, the same request aimed at another persona's, with the
// code a persona token must get for it.
type routeSample struct {
	path, body string
	// other is the path of the same read of another persona's; otherBody
	// its body; otherCode what the deputy's token gets.
	other, otherBody, otherCode string
}

// documentedAccess reads the access column of docs/api.md's endpoint tables
// (none, any, op, rt): the expectation this test holds the hub to is what
// the documentation promises, not what routes() says.
func documentedAccess(t *testing.T) map[string]string {
	t.Helper()
	doc, err := os.ReadFile("../../docs/api.md")
	mustNil(t, err)
	row := regexp.MustCompile("(?m)^\\| `(GET|POST|DELETE) (/v1/[^`\\[?]*)[^`]*` \\| (none|any|op|rt) \\|")
	out := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(string(doc), -1) {
		out[m[1]+" "+m[2]] = m[3]
	}
	return out
}

// TestAPersonaSeesOnlyItself: every route of the routes
// table is called with an operator token and a persona token (and none);
// each kind is refused exactly where docs/api.md says the other kind is
// needed, and a persona token reads its own stamp, record, presence,
// confirmations and assignments, never another persona's
// (GET /v1/stamps/<other> with a persona token → 403).
func TestAPersonaSeesOnlyItself(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	lead := th.addPersona(t, "work/core/lead", "Spica")
	deputy := th.addPersona(t, "work/core/deputy", "Vindemiatrix")
	ctx := context.Background()
	leadConf, err := th.runtime(t, lead).RequestConfirmation(ctx, deployOp("access-lead"))
	mustNil(t, err)
	if leadConf.Confirmation == nil {
		t.Fatalf("the lead's deploy queued nothing: %+v", leadConf)
	}
	optok, err := hubapi.OperatorToken(th.home.Dir, "henry")
	mustNil(t, err)
	b, err := os.ReadFile(th.home.GenerationDir(deputy.ID) + "/" + hubapi.TokenFile)
	mustNil(t, err)
	rttok := strings.TrimSpace(string(b))

	samples := routeSamples(leadConf.Confirmation.ID)
	access := documentedAccess(t)
	refused := func(code string) bool { return code == "forbidden" || code == "unauthenticated" }
	for _, rt := range routes() {
		key := rt.method + " " + rt.pattern
		s, ok := samples[key]
		if !ok {
			t.Errorf("%s: no sample request; add one to this test so that both token kinds are tried", key)
			continue
		}
		acc, ok := access[key]
		if !ok {
			t.Errorf("%s: docs/api.md gives it no access (none, any, op or rt)", key)
			continue
		}
		status, code := call(t, th.home.Dir, rt.method, s.path, optok, s.body)
		if wantRefused := acc == "rt"; refused(code) != wantRefused {
			t.Errorf("%s with an operator token: %d %q; docs/api.md says %s", key, status, code, acc)
		}
		if acc == "rt" && (status != http.StatusForbidden || code != "forbidden") {
			t.Errorf("%s with an operator token: %d %q, want 403 forbidden", key, status, code)
		}
		status, code = call(t, th.home.Dir, rt.method, s.path, rttok, s.body)
		if wantRefused := acc == "op"; refused(code) != wantRefused {
			t.Errorf("%s with a persona token: %d %q; docs/api.md says %s", key, status, code, acc)
		}
		if acc == "op" && (status != http.StatusForbidden || code != "forbidden") {
			t.Errorf("%s with a persona token: %d %q, want 403 forbidden", key, status, code)
		}
		if acc != "none" {
			if status, code := call(t, th.home.Dir, rt.method, s.path, "", s.body); status != http.StatusUnauthorized {
				t.Errorf("%s without a token: %d %q, want 401", key, status, code)
			}
		}
		if s.other == "" {
			continue
		}
		if acc != "any" {
			t.Errorf("%s: an other-persona sample on a route a persona token cannot call", key)
		}
		if status, code := call(t, th.home.Dir, rt.method, s.other, optok, s.otherBody); refused(code) || status >= 400 {
			t.Errorf("%s of another persona with an operator token: %d %q, want it read", key, status, code)
		}
		if _, code := call(t, th.home.Dir, rt.method, s.other, rttok, s.otherBody); code != s.otherCode {
			t.Errorf("%s of another persona with a persona token: %q, want %q", key, code, s.otherCode)
		}
	}
	for key := range samples {
		found := false
		for _, rt := range routes() {
			found = found || rt.method+" "+rt.pattern == key
		}
		if !found {
			t.Errorf("sample %s names no route", key)
		}
	}

	// The loop claimed a fence (POST /v1/fence): from here on the deputy
	// calls as the instance holding the generation's latest one.
	dep := th.runtime(t, deputy)
	_, err = dep.ClaimFence(ctx)
	mustNil(t, err)
	// A persona token probing a name that does not exist is answered as
	// for another persona's, so it cannot learn who exists.
	_, err = dep.Stamp(ctx, "Nobody")
	wantCode(t, err, "forbidden")
	// Lists a persona token may call hold only its own entries.
	cs, err := dep.Confirmations(ctx, true)
	mustNil(t, err)
	for _, c := range cs {
		if c.PersonaID != deputy.ID && c.Authority.Name != deputy.Address {
			t.Errorf("the deputy's list holds confirmation %s of %s routed to %s", c.ID, c.Operation.Persona, c.Authority)
		}
	}
	if _, err := dep.Stamp(ctx, lead.Address); err == nil {
		t.Fatal("the deputy read the lead's stamp")
	} else {
		wantCode(t, err, "forbidden")
	}
	own, err := dep.Stamp(ctx, deputy.Address)
	mustNil(t, err)
	if own.PersonaID != deputy.ID {
		t.Fatalf("the deputy's own stamp is of %s", own.PersonaID)
	}
}

// routeSamples is one sample request per route of routes(), as the deputy
// work/core/deputy (Vindemiatrix) of a hub with the lead work/core/lead
// would send it; confID is a confirmation of the lead's.
func routeSamples(confID string) map[string]routeSample {
	op := `{"tool":"workspace_read","target":"path:QUEUE.md","shape":"read:range","persona":"work/core/deputy","correlation_id":"access-1"}`
	return map[string]routeSample{
		"GET /v1/health":             {path: "/v1/health"},
		"GET /v1/whoami":             {path: "/v1/whoami"},
		"POST /v1/hub/handover":      {path: "/v1/hub/handover"},
		"GET /v1/snapshot":           {path: "/v1/snapshot"},
		"GET /v1/stream":             {path: "/v1/stream?after=0"},
		"POST /v1/presence/beat":     {path: "/v1/presence/beat"},
		"POST /v1/presence/set":      {path: "/v1/presence/set", body: `{"activity":"reading"}`},
		"POST /v1/presence/stream":   {path: "/v1/presence/stream", body: "\n"},
		"GET /v1/presence":           {path: "/v1/presence"},
		"GET /v1/personas":           {path: "/v1/personas?all=true"},
		"POST /v1/personas":          {path: "/v1/personas", body: `{"address":"work/lead","name":"Zaniah"}`},
		"POST /v1/personas/retire":   {path: "/v1/personas/retire", body: `{"persona":"Nobody","reason":"x"}`},
		"GET /v1/seats/{address...}": {path: "/v1/seats/work/core/lead"},
		"GET /v1/names":              {path: "/v1/names"},
		"GET /v1/snapshots/{ref...}": {path: "/v1/snapshots/work/core/deputy"},
		"POST /v1/snapshots/restore": {path: "/v1/snapshots/restore", body: "not a snapshot"},
		"GET /v1/stamps/diff":        {path: "/v1/stamps/diff?from=coder-deputy&to=project-lead"},
		"POST /v1/authorize":         {path: "/v1/authorize", body: op},
		"POST /v1/confirmations":     {path: "/v1/confirmations", body: op},
		"GET /v1/confirmations":      {path: "/v1/confirmations?all=true"},
		"GET /v1/prompts":            {path: "/v1/prompts"},
		"GET /v1/audit":              {path: "/v1/audit"},
		"GET /v1/store/check":        {path: "/v1/store/check"},
		"GET /v1/store/backup":       {path: "/v1/store/backup"},
		"POST /v1/confirmations/{id}/decide": {path: "/v1/confirmations/c-000000000000/decide",
			body: `{"approve":false,"reason":"no"}`},
		"POST /v1/prompts/{id}/carry-forward": {path: "/v1/prompts/x/carry-forward", body: `{"persona":"work/core/deputy"}`},
		"POST /v1/prompts/{id}/drop":          {path: "/v1/prompts/x/drop", body: `{"persona":"work/core/deputy"}`},
		"POST /v1/assignments":                {path: "/v1/assignments", body: `{"persona":"work/core/deputy","task":"work/web/t-1"}`},
		"GET /v1/operators":                   {path: "/v1/operators"},
		"POST /v1/operators":                  {path: "/v1/operators", body: `{"name":"zed"}`},
		"DELETE /v1/operators/{name}":         {path: "/v1/operators/nobody"},
		"POST /v1/fence":                      {path: "/v1/fence"},
		"POST /v1/messages":                   {path: "/v1/messages", body: `{"to":"work/core/lead","body":"hello"}`},
		"GET /v1/messages":                    {path: "/v1/messages?seat=work/core/deputy"},
		"GET /v1/messages/stream":             {path: "/v1/messages/stream"},
		"POST /v1/messages/{id}/ack":          {path: "/v1/messages/m-1/ack"},
		"POST /v1/tools/{tool}":               {path: "/v1/tools/list_tasks", body: `{"persona":"work/core/deputy"}`},
		"GET /v1/inbox":                       {path: "/v1/inbox"},
		"GET /v1/inbox/status":                {path: "/v1/inbox/status"},
		"POST /v1/inbox/{id}/reply":           {path: "/v1/inbox/h-1/reply", body: `{"text":"hi"}`},
		"POST /v1/inbox/{id}/react":           {path: "/v1/inbox/h-1/react", body: `{"reaction":"ack","correlation_id":"r-1"}`},
		"POST /v1/inbox/{id}/ack":             {path: "/v1/inbox/h-1/ack"},
		"POST /v1/inbox/{id}/tick":            {path: "/v1/inbox/h-1/tick", body: `{"index":0,"done":true}`},
		"POST /v1/inbox/{id}/answer":          {path: "/v1/inbox/h-1/answer", body: `{"action":"ship"}`},
		"GET /v1/inbox/{id}/file":             {path: "/v1/inbox/h-1/file"},

		"GET /v1/personas/{ref...}": {path: "/v1/personas/work/core/deputy",
			other: "/v1/personas/work/core/lead", otherCode: "forbidden"},
		"GET /v1/stamps/{ref...}": {path: "/v1/stamps/Vindemiatrix",
			other: "/v1/stamps/work/core/lead", otherCode: "forbidden"},
		// The lead's confirmation: the operator reads it; to the deputy it
		// does not exist.
		"GET /v1/confirmations/{id}": {path: "/v1/confirmations/" + confID,
			other: "/v1/confirmations/" + confID, otherCode: "no_confirmation"},
		"GET /v1/assignments": {path: "/v1/assignments?persona=work/core/deputy",
			other: "/v1/assignments?persona=work/core/lead", otherCode: "forbidden"},
	}
}

// call sends one request with token (none when empty) and returns the
// status and, for an error, its code. A streaming answer is not read.
func call(t *testing.T, home, method, path, token, body string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, "http://hub"+path, strings.NewReader(body))
	mustNil(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" && !strings.Contains(path, "/presence/stream") {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := socketHTTP(home).Do(req)
	mustNil(t, err)
	defer resp.Body.Close()
	if resp.StatusCode < 400 {
		return resp.StatusCode, ""
	}
	var ae hubapi.APIError
	b, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(b, &ae)
	return resp.StatusCode, ae.Code
}
