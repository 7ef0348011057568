package hub

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// The reproduction: "A retired persona's calls answer `unauthenticated:
// send Authorization: Bearer <token>`, which reads like a setup error."
// Now every route a token is needed for answers a retired generation's
// token 409 `retired`, saying when the generation was retired, why, and
// that the seat may have a new holder — and a restarted hub, which learns
// the retired generations' token hashes from the store, answers the same.
func TestRetiredTokenAnswersRetired(t *testing.T) {
	home := shortHome(t)
	th := startHub(t, home, Config{}, Timeouts{})
	p := th.addPersona(t, "work/core/lead", "Spica")
	b, err := os.ReadFile(home.GenerationDir(p.ID) + "/" + hubapi.TokenFile)
	mustNil(t, err)
	tok := strings.TrimSpace(string(b))
	th.retire(t, "work/core/lead", "moved to the docs project")
	retired, err := th.hub.Registry().Get(context.Background(), p.ID)
	mustNil(t, err)
	if retired.RetiredAt == nil {
		t.Fatal("the retired record has no retirement time")
	}
	when := retired.RetiredAt.UTC().Format(time.RFC3339)

	every := func(what string) {
		t.Helper()
		access := documentedAccess(t)
		for key, s := range routeSamples("c-none") {
			if access[key] == "none" {
				continue
			}
			method, _, _ := strings.Cut(key, " ")
			if status, code := call(t, home.Dir, method, s.path, tok, s.body); status != http.StatusConflict || code != "retired" {
				t.Errorf("%s: %s with the retired token: %d %q, want 409 retired", what, key, status, code)
			}
		}
		resp, ae := rawRequest(t, home.Dir, "GET", "/v1/whoami", tok, nil)
		if resp.StatusCode != http.StatusConflict || ae.Code != "retired" {
			t.Fatalf("%s: whoami with the retired token: %s %+v, want 409 retired", what, resp.Status, ae)
		}
		for _, want := range []string{"work/core/lead", "Spica", "retired at " + when, "moved to the docs project", "new holder"} {
			if !strings.Contains(ae.Msg, want) {
				t.Errorf("%s: the refusal %q does not say %q", what, ae.Msg, want)
			}
		}
		if strings.Contains(ae.Msg, "Authorization") {
			t.Errorf("%s: the refusal %q still reads like a setup error", what, ae.Msg)
		}
	}
	every("after its retirement")
	th.stop()
	startHub(t, home, Config{}, Timeouts{})
	every("after a restart")
	// A token the hub never issued is still the setup error it was.
	if resp, ae := rawRequest(t, home.Dir, "GET", "/v1/whoami", hubapi.TokenPrefix+"never-issued", nil); resp.StatusCode != http.StatusUnauthorized || ae.Code != "unauthenticated" {
		t.Errorf("an unknown token: %s %+v, want 401 unauthenticated", resp.Status, ae)
	}
}
