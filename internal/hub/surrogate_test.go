package hub

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// A JSON escape of a lone UTF-16 surrogate ("\ud800") names no character;
// decoders that replace it store U+FFFD, though the docs say invalid text is
// refused. Every such body is refused 400 malformed_json naming the
// surrogate, and nothing is stored.
func TestLoneSurrogateEscapesAreRefused(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	lead := th.addPersona(t, "work/core/lead", "Spica")
	deputy := th.addPersona(t, "work/core/deputy", "Zaniah")
	raw, err := os.ReadFile(th.home.GenerationDir(lead.ID) + "/" + hubapi.TokenFile)
	mustNil(t, err)
	tok := strings.TrimSpace(string(raw))
	for _, body := range []string{`\ud800`, `a\udfffb`, `\ud800\u0041`, `\udc00\ud800`, `x\ud83d`} {
		resp, ae := rawRequest(t, th.home.Dir, "POST", "/v1/messages", tok,
			[]byte(`{"to":"`+deputy.Address+`","subject":"s","body":"`+body+`"}`))
		if resp.StatusCode != http.StatusBadRequest || ae.Code != "malformed_json" || !strings.Contains(ae.Msg, "surrogate") {
			t.Errorf("body %s: %d %q (%s), want 400 malformed_json naming the surrogate", body, resp.StatusCode, ae.Code, ae.Msg)
		}
	}
	page, err := th.operator(t, "henry").Messages(context.Background(), deputy.Address, "", 0)
	mustNil(t, err)
	if len(page.Items) != 0 {
		t.Fatalf("refused bodies were stored: %+v", page.Items)
	}
}
