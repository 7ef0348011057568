package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// getRaw returns the bytes of a GET answer as an operator.
func getRaw(t *testing.T, th *testHub, path string) []byte {
	t.Helper()
	optok, err := OperatorToken(th.home.Dir, "henry")
	mustNil(t, err)
	req, _ := http.NewRequest("GET", "http://hub"+path, nil)
	req.Header.Set("Authorization", "Bearer "+optok)
	resp, err := th.operator(t, "henry").http.Do(req)
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
// the client's fast decoder — to the registry's records and the presence.
func TestPersonaListAnswerKeepsItsBytesAndRecords(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	th.addPersona(t, "work/core/lead", "Spica")
	th.addPersona(t, "work/core/deputy", "Porrima")
	th.retire(t, "work/core/deputy", `done: "quoted" <b>&</b> é`+"\n\t\u2028")
	ctx := context.Background()
	rt := th.runtime(t, th.addPersona(t, "work/web/lead", "Heze"))
	act := `reading "QUEUE.md" \ <now>`
	_, err := rt.SetPresence(ctx, &act, nil)
	mustNil(t, err)
	time.Sleep(50 * time.Millisecond) // presence is published coalesced

	ps, err := th.hub.Registry().List(ctx, registry.ListOptions{All: true})
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
	fast, err := decodeViews(got)
	mustNil(t, err)
	viaClient, err := th.operator(t, "henry").Personas(ctx, true)
	mustNil(t, err)
	for i := range want {
		if w := PersonaView(want[i]); !reflect.DeepEqual(fast[i], w) || !reflect.DeepEqual(viaClient[i], w) {
			t.Fatalf("view %d: fast decoder %+v, client %+v, want %+v", i, fast[i], viaClient[i], w)
		}
	}
	if len(fast) != len(want) || len(viaClient) != len(want) {
		t.Fatalf("decoded %d and %d views, want %d", len(fast), len(viaClient), len(want))
	}

	one := getRaw(t, th, "/v1/personas/work/web/lead")
	heze, err := th.hub.resolve(ctx, "work/web/lead")
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

// FuzzDecodeViews: the client's decoder never panics, and agrees with
// encoding/json on whatever both read.
func FuzzDecodeViews(f *testing.F) {
	p := registry.Persona{ID: "p-1", Name: "Spica", Address: "work/core/lead", Scope: "work", Project: "core", Role: "lead",
		Generation: 1, State: registry.StateActive, CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)}
	list, _ := appendViews(nil, []PersonaView{{Persona: p, Presence: &Presence{ID: "p-1", State: StateStanding}}, {Persona: p}})
	for _, seed := range []string{string(list), "[]", " [ ] ", `[{"persona":{}}]`, `[{"persona":{"id":"a\"}"}}]`,
		`[{"presence":{"id":"x"},"persona":{"id":"y"}}]`, `[{"persona":{"id":"y"},"presence":{"id":"x"}},]`, `[{"persona":{"id":{}}}]`, "[\x00"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := decodeViews(data)
		var std []viewFields
		stdErr := json.Unmarshal(data, &std)
		if err != nil || stdErr != nil {
			return
		}
		if len(got) != len(std) {
			t.Fatalf("%q: %d views, encoding/json %d", data, len(got), len(std))
		}
		for i := range got {
			if a, b := oldEncoding(t, viewFields(got[i])), oldEncoding(t, std[i]); !bytes.Equal(a, b) {
				t.Fatalf("%q: view %d reads %s, encoding/json %s", data, i, a, b)
			}
		}
	})
}

// A list large enough to be decoded in two halves reads as one: every view
// in order, as encoding/json reads them; a break in either half falls back
// to encoding/json's verdict.
func TestLargeListDecodesInHalves(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	var vs []PersonaView
	for i := 0; len(vs) < 4000; i++ {
		p := registry.Persona{ID: fmt.Sprintf("p-%05d", i), Name: fmt.Sprintf("Bench %d", i), Address: fmt.Sprintf("w/p%d/lead", i),
			Scope: "w", Project: fmt.Sprintf("p%d", i), Role: "lead", Generation: 1, State: registry.StateActive, CreatedAt: at,
			RetireReason: `odd }},{"persona":{ text`}
		v := PersonaView{Persona: p}
		if i%3 != 0 {
			v.Presence = &Presence{ID: p.ID, Address: p.Address, State: StateStanding, Activity: `say "hi" <b>`}
		}
		vs = append(vs, v)
	}
	data, err := appendViews(nil, vs)
	mustNil(t, err)
	if len(data) < splitAt {
		t.Fatalf("the list is %d bytes, too small to be split (%d)", len(data), splitAt)
	}
	got, err := decodeViews(data)
	mustNil(t, err)
	var std []viewFields
	mustNil(t, json.Unmarshal(data, &std))
	if len(got) != len(vs) || len(std) != len(vs) {
		t.Fatalf("decoded %d views (encoding/json %d), want %d", len(got), len(std), len(vs))
	}
	for i := range vs {
		if !reflect.DeepEqual(got[i], vs[i]) || !reflect.DeepEqual(PersonaView(std[i]), vs[i]) {
			t.Fatalf("view %d: %+v, encoding/json %+v, want %+v", i, got[i], std[i], vs[i])
		}
	}
	broken := bytes.Clone(data)
	broken[len(broken)*3/4] = '\x00'
	if _, err := decodeViews(broken); err == nil {
		t.Fatal("a list broken in its second half decoded")
	}
}
