package hub

import (
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// "A test that lists every route's error codes and fails
// on a duplicate". Every route of routes() is called the ways that fail
// without knowing the route — no token, each kind of token with a body
// that is not JSON and queries out of range, a method it does not serve —
// and every code it answers must be one of the table's, each of which
// names exactly one error and is documented (internal/hubapi's tests). The list is logged.
func TestEveryRouteAnswersOnlyNamedCodes(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	deputy := th.addPersona(t, "work/core/deputy", "Vindemiatrix")
	optok, err := hubapi.OperatorToken(th.home.Dir, "henry")
	mustNil(t, err)
	b, err := os.ReadFile(th.home.GenerationDir(deputy.ID) + "/" + hubapi.TokenFile)
	mustNil(t, err)
	rttok := strings.TrimSpace(string(b))
	params := strings.NewReplacer("{ref...}", "Nobody", "{address...}", "work/core/lead", "{id}", "c-000000000000", "{name}", "nobody")
	var listing []string
	for _, rt := range routes() {
		path := params.Replace(rt.pattern) + "?n=x&limit=x&after=x&persona=Nobody"
		other := "PUT"
		if rt.method == "PUT" {
			other = "PATCH"
		}
		codes := map[string]bool{}
		for _, try := range []struct{ method, token, body string }{
			{rt.method, "", ""},
			{rt.method, optok, "{"},
			{rt.method, rttok, "{"},
			{rt.method, optok, `{"persona":"Nobody"}`},
			{other, optok, ""},
		} {
			if _, code := call(t, th.home.Dir, try.method, path, try.token, try.body); code != "" {
				codes[code] = true
			}
		}
		var list []string
		for code := range codes {
			if !hubapi.NamesError(code) {
				t.Errorf("%s %s answered code %q, which names no error of the table", rt.method, rt.pattern, code)
			}
			list = append(list, code)
		}
		sort.Strings(list)
		listing = append(listing, rt.method+" "+rt.pattern+": "+strings.Join(list, ", "))
	}
	t.Logf("codes answered by each route:\n%s", strings.Join(listing, "\n"))
}
