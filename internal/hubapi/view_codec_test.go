package hubapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

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

// appendViews writes vs as the hub writes its persona list.
func appendViews(vs []PersonaView) ([]byte, error) {
	recs := make([]registry.Record, len(vs))
	presence := map[string]Presence{}
	for i, v := range vs {
		recs[i] = registry.RecordOf(v.Persona)
		if v.Presence != nil {
			presence[v.Persona.ID] = *v.Presence
		}
	}
	return AppendRecordViews(nil, recs, func(id string) (Presence, bool) { p, ok := presence[id]; return p, ok })
}

// FuzzDecodeViews: the client's decoder never panics, and agrees with
// encoding/json on whatever both read.
func FuzzDecodeViews(f *testing.F) {
	p := registry.Persona{ID: "p-1", Name: "Spica", Address: "work/core/lead", Scope: "work", Project: "core", Role: "lead",
		Generation: 1, State: registry.StateActive, CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)}
	q := p
	q.ID = "p-2"
	list, _ := appendViews([]PersonaView{{Persona: p, Presence: &Presence{ID: "p-1", State: StateStanding}}, {Persona: q}})
	for _, seed := range []string{string(list), "[]", " [ ] ", `[{"persona":{}}]`, `[{"persona":{"id":"a\"}"}}]`,
		`[{"presence":{"id":"x"},"persona":{"id":"y"}}]`, `[{"persona":{"id":"y"},"presence":{"id":"x"}},]`, `[{"persona":{"id":{}}}]`, "[\x00"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := DecodeViews(data)
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
	data, err := appendViews(vs)
	mustNil(t, err)
	if len(data) < splitAt {
		t.Fatalf("the list is %d bytes, too small to be split (%d)", len(data), splitAt)
	}
	got, err := DecodeViews(data)
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
	if _, err := DecodeViews(broken); err == nil {
		t.Fatal("a list broken in its second half decoded")
	}
}

func mustNil(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// recordsJSON is each record's JSON, one per line.
func recordsJSON(rs []registry.Record) string {
	var b []byte
	for _, r := range rs {
		b = append(append(b, r.JSON()...), '\n')
	}
	return string(b)
}

// FuzzDecodeRecords: the client's record reader never panics, and its fast
// path agrees with encoding/json on whatever both read.
func FuzzDecodeRecords(f *testing.F) {
	p := registry.Persona{ID: "p-1", Name: "Spica", Address: "work/core/lead", Scope: "work", Project: "core", Role: "lead",
		Generation: 1, State: registry.StateActive, CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)}
	q := p
	q.ID, q.RetireReason = "p-2", "esc \x1b[2J \"}\""
	list, _ := appendViews([]PersonaView{{Persona: p, Presence: &Presence{ID: "p-1", State: StateStanding}}, {Persona: q}})
	for _, seed := range []string{string(list), "[]", " [ ] ", `[{"persona":{}}]`, `[{"persona":{"id":"a\"}"}}]`,
		`[{"persona":{"id":"y"},"presence":{"id":}}]`, `[{"persona":{"id":"y"}},]`, "[\x00"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, ok := fastRecords(data)
		DecodeRecords(data)
		if !ok {
			return
		}
		std, err := stdRecords(data)
		if err != nil {
			t.Fatalf("%q: the fast path read what encoding/json refuses: %v", data, err)
		}
		if a, b := recordsJSON(fast), recordsJSON(std); a != b {
			t.Fatalf("%q: fast path reads\n%s\nencoding/json\n%s", data, a, b)
		}
	})
}

// The records of a persona list read back as the store's bytes, with
// presence or without; the same list in another JSON form (encoding/json,
// indented) reads as the same records.
func TestDecodeRecordsReadsTheList(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	var vs []PersonaView
	var want string
	for i := range 50 {
		p := registry.Persona{ID: fmt.Sprintf("p-%05d", i), Name: fmt.Sprintf("Bench %d", i), Address: fmt.Sprintf("w/p%d/lead", i),
			Scope: "w", Project: fmt.Sprintf("p%d", i), Role: "lead", Generation: 1, State: registry.StateActive, CreatedAt: at,
			RetireReason: "odd }},{\"persona\":{ text \x1b]0;x\x07 <b>"}
		v := PersonaView{Persona: p}
		if i%3 != 0 {
			v.Presence = &Presence{ID: p.ID, Address: p.Address, State: StateStanding, Activity: `say "hi" <b>`}
		}
		vs = append(vs, v)
		want += string(p.AppendJSON(nil)) + "\n"
	}
	withPresence, err := appendViews(vs)
	mustNil(t, err)
	recs := make([]registry.Record, len(vs))
	for i, v := range vs {
		recs[i] = registry.RecordOf(v.Persona)
	}
	without, err := AppendRecordViews(nil, recs, nil)
	mustNil(t, err)
	if bytes.Contains(without, []byte(`"presence"`)) {
		t.Fatalf("a list without presence holds some: %s", without)
	}
	indented, err := json.MarshalIndent(vs, "", "  ")
	mustNil(t, err)
	for name, data := range map[string][]byte{"with presence": withPresence, "without": without, "indented": indented} {
		rs, err := DecodeRecords(data)
		mustNil(t, err)
		if got := recordsJSON(rs); got != want {
			t.Errorf("%s: records\n%s\nwant\n%s", name, got, want)
		}
		if _, fast := fastRecords(data); fast != (name != "indented") {
			t.Errorf("%s: fast path taken: %v", name, fast)
		}
	}
	if _, err := DecodeRecords(withPresence[:len(withPresence)/2]); err == nil {
		t.Error("half a list decoded")
	}
	if rs, err := DecodeRecords([]byte("[]")); err != nil || rs == nil || len(rs) != 0 {
		t.Errorf("empty list = %#v, %v", rs, err)
	}
}
