package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/registry/roster"
)

// getRaw returns the bytes of a GET answer as an operator.
func getRaw(t *testing.T, th *testHub, path string) []byte {
	t.Helper()
	optok, err := hubapi.OperatorToken(th.home.Dir, "henry")
	mustNil(t, err)
	req, _ := http.NewRequest("GET", "http://hub"+path, nil)
	req.Header.Set("Authorization", "Bearer "+optok)
	resp, err := socketHTTP(th.home.Dir).Do(req)
	mustNil(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	mustNil(t, err)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
	}
	return b
}

// oldEncoding is how the hub wrote views before they had their own
// encoder: encoding/json over the struct (without HTML escaping, which the
// record's encoder, like `persona list -o json`, does not do), then a newline.
func oldEncoding(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	mustNil(t, enc.Encode(v))
	return buf.Bytes()
}

// The persona list answer keeps its wire format: its bytes are what
// encoding/json wrote before, and they decode — with encoding/json and with
// the client's fast decoder — to the registry's records and the presence;
// without presence, to the registry's records as it stores them.
func TestPersonaListAnswerKeepsItsBytesAndRecords(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	th.addPersona(t, "work/core/lead", "Spica")
	th.addPersona(t, "work/core/deputy", "Porrima")
	th.retire(t, "work/core/deputy", `done: "quoted" <b>&</b> é \ ✓`)
	ctx := context.Background()
	rt := th.runtime(t, th.addPersona(t, "work/web/lead", "Heze"))
	act := `reading "QUEUE.md" \ <now>`
	_, err := rt.SetPresence(ctx, &act, nil)
	mustNil(t, err)
	time.Sleep(50 * time.Millisecond) // presence is published coalesced

	ps, err := th.hub.Registry().List(ctx, roster.ListOptions{All: true})
	mustNil(t, err)
	want := make([]viewFields, len(ps))
	for i, p := range ps {
		want[i] = viewFields(th.hub.view(p))
		if pr := want[i].Presence; pr != nil {
			// as read back: no monotonic clock reading, in UTC
			pr.LastSeen, pr.ActivityAt = pr.LastSeen.Round(0).UTC(), pr.ActivityAt.Round(0).UTC()
		}
	}

	got := getRaw(t, th, "/v1/personas?all=true")
	if old := oldEncoding(t, want); !bytes.Equal(got, old) {
		t.Fatalf("GET /v1/personas changed its bytes:\n got %s\nwant %s", got, old)
	}
	var viaStd []viewFields
	mustNil(t, json.Unmarshal(got, &viaStd))
	if !reflect.DeepEqual(viaStd, want) {
		t.Fatalf("encoding/json reads other views than the registry and tracker hold:\n got %+v\nwant %+v", viaStd, want)
	}
	viaClient, err := th.operator(t, "henry").Personas(ctx, true)
	mustNil(t, err)
	if len(viaClient) != len(want) {
		t.Fatalf("the client decoded %d views, want %d", len(viaClient), len(want))
	}
	for i := range want {
		if w := hubapi.PersonaView(want[i]); !reflect.DeepEqual(viaClient[i], w) {
			t.Fatalf("view %d: client %+v, want %+v", i, viaClient[i], w)
		}
	}

	// Without presence (presence=false, what `persona list` asks): the same
	// records, and the client reads each as the registry's own bytes.
	bare := make([]viewFields, len(want))
	for i := range want {
		bare[i] = viewFields{Persona: want[i].Persona}
	}
	if got, old := getRaw(t, th, "/v1/personas?all=true&presence=false"), oldEncoding(t, bare); !bytes.Equal(got, old) {
		t.Fatalf("GET /v1/personas?presence=false:\n got %s\nwant %s", got, old)
	}
	for _, all := range []bool{false, true} {
		recs, err := th.operator(t, "henry").PersonaRecords(ctx, all)
		mustNil(t, err)
		list, err := th.hub.Registry().List(ctx, roster.ListOptions{All: all})
		mustNil(t, err)
		if len(recs) != len(list) {
			t.Fatalf("all=%v: %d records, %d personas", all, len(recs), len(list))
		}
		for i, p := range list {
			want, err := registry.EncodePersona(p)
			mustNil(t, err)
			if !bytes.Equal(recs[i].JSON(), want) {
				t.Fatalf("all=%v: record %d is %s, want %s", all, i, recs[i].JSON(), want)
			}
		}
	}

	one := getRaw(t, th, "/v1/personas/work/web/lead")
	heze, err := th.hub.cases.Resolve(ctx, "work/web/lead")
	mustNil(t, err)
	if old := oldEncoding(t, viewFields(th.hub.view(heze))); !bytes.Equal(one, old) {
		t.Fatalf("GET /v1/personas/{ref} changed its bytes:\n got %s\nwant %s", one, old)
	}
	v, err := th.operator(t, "henry").Persona(ctx, "Heze")
	mustNil(t, err)
	if v.Presence == nil || v.Presence.Activity != act || !reflect.DeepEqual(v.Persona, heze) {
		t.Fatalf("client's single view %+v, want %+v with activity %q", v, heze, act)
	}
}

// An empty list is [] on the wire and an empty, non-nil list in the client.
func TestEmptyPersonaList(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	if got := getRaw(t, th, "/v1/personas"); string(got) != "[]\n" {
		t.Fatalf("empty list answer %q, want []", got)
	}
	vs, err := th.operator(t, "henry").Personas(context.Background(), false)
	mustNil(t, err)
	if vs == nil || len(vs) != 0 {
		t.Fatalf("empty list decoded as %#v", vs)
	}
}

// viewFields is hubapi.PersonaView without its methods, for encoding/json.
type viewFields hubapi.PersonaView
