package hubapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// appendViews writes vs as the hub writes its persona list.
func appendViews(vs []PersonaView) ([]byte, error) {
	recs := make([]registry.Record, len(vs))
	presence := map[string]Presence{}
	for i, v := range vs {
		r, err := registry.RecordOf(v.Persona)
		if err != nil {
			return nil, err
		}
		recs[i] = r
		if v.Presence != nil {
			presence[v.Persona.ID] = *v.Presence
		}
	}
	return MarshalRecordViews(recs, func(id string) (Presence, bool) { p, ok := presence[id]; return p, ok })
}

// A persona list as the hub writes it reads back through Decode as the
// views it was written from, every field of every view in order.
func TestViewsReadBackThroughDecode(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	var vs []PersonaView
	for i := range 300 {
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
	var got []PersonaView
	mustNil(t, Decode(data, &got))
	if !reflect.DeepEqual(got, vs) {
		t.Fatalf("decoded %d views, want %d as written", len(got), len(vs))
	}
	broken := bytes.Clone(data)
	broken[len(broken)*3/4] = '\x00'
	if err := Decode(broken, &got); !errors.Is(err, ErrMalformedJSON) {
		t.Fatalf("a list broken in its second half: %v, want ErrMalformedJSON", err)
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
		rec, err := registry.EncodePersona(p)
		mustNil(t, err)
		want += string(rec) + "\n"
	}
	withPresence, err := appendViews(vs)
	mustNil(t, err)
	recs := make([]registry.Record, len(vs))
	for i, v := range vs {
		recs[i], err = registry.RecordOf(v.Persona)
		mustNil(t, err)
	}
	without, err := MarshalRecordViews(recs, nil)
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
	}
	if _, err := DecodeRecords(withPresence[:len(withPresence)/2]); err == nil {
		t.Error("half a list decoded")
	}
	if rs, err := DecodeRecords([]byte("[]")); err != nil || rs == nil || len(rs) != 0 {
		t.Errorf("empty list = %#v, %v", rs, err)
	}
}

// A presence text in invalid UTF-8 is written with U+FFFD: one persona's
// activity does not make the list, or its own view, fail.
func TestViewsWriteInvalidUTF8AsReplacement(t *testing.T) {
	p := registry.Persona{ID: "p-1", Name: "Spica", Address: "w/p/lead", Scope: "w", Project: "p", Role: "lead",
		Generation: 1, State: registry.StateActive, CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	v := PersonaView{Persona: p, Presence: &Presence{ID: p.ID, Address: p.Address, State: StateStanding, Activity: "bad \xff"}}
	list, err := appendViews([]PersonaView{v})
	mustNil(t, err)
	one, err := v.MarshalJSON()
	mustNil(t, err)
	for name, data := range map[string][]byte{"list": list, "view": one} {
		if !bytes.Contains(data, []byte(`"activity":"bad `+"\uFFFD"+`"`)) {
			t.Errorf("%s: %s", name, data)
		}
	}
}
