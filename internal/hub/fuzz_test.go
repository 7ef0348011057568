package hub

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// FuzzRequestBodies sends arbitrary bodies to every endpoint that reads one,
// as an operator and as a runtime: the hub answers, never panics, never
// fails with a 5xx, and every error is JSON {error, code}.
func FuzzRequestBodies(f *testing.F) {
	for _, seed := range []string{
		``, `{}`, `{"activity":"x"}`, "\n\n{\"summary\":\"s\"}\n", `{"persona":"work/core/lead","reason":"r"}`,
		`{"tool":"workspace_write","target":"path:QUEUE.md","shape":"write:overwrite","correlation_id":"c-1"}`,
		`{"tool":"workspace_read","target":"path:../../etc/passwd","shape":"read:range"}`,
		`{"approve":true,"remember":"class"}`, `{"address":"work/x/lead","name":"Ñandú"}`, `[`, `{"a":1}{`, "\x00\xff",
	} {
		f.Add(seed)
	}
	th := startHub(f, shortHome(f), Config{}, Timeouts{})
	lead := th.addPersona(f, "work/core/lead", "Spica")
	optok, err := hubapi.OperatorToken(th.home.Dir, "henry")
	mustNil(f, err)
	rttok, err := os.ReadFile(th.home.GenerationDir(lead.ID) + "/" + hubapi.TokenFile)
	mustNil(f, err)
	handler := th.hub.Handler()
	posts := []struct{ path, token string }{
		{"/v1/presence/beat", string(rttok)}, {"/v1/presence/set", string(rttok)}, {"/v1/presence/stream", string(rttok)},
		{"/v1/authorize", optok}, {"/v1/confirmations", string(rttok)}, {"/v1/confirmations/c-000000000000/decide", optok},
		{"/v1/personas/retire", optok}, {"/v1/personas", optok},
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, p := range posts {
			req := httptest.NewRequest("POST", p.path, strings.NewReader(body)).WithContext(context.Background())
			req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(p.token))
			rec := httptest.NewRecorder()
			handler.ServeHTTP(rec, req)
			if rec.Code >= 500 {
				t.Fatalf("POST %s %q: %d %s", p.path, body, rec.Code, rec.Body)
			}
			if rec.Code >= 400 {
				var ae hubapi.APIError
				if err := json.Unmarshal(rec.Body.Bytes(), &ae); err != nil || ae.Code == "" || ae.Msg == "" {
					t.Fatalf("POST %s %q: error answer %q is not {error, code}", p.path, body, rec.Body)
				}
			}
		}
	})
}
