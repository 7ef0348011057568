package registry

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// plainPersona has Persona's fields and tags but not its methods, so
// encoding/json handles it by reflection: the reference the codec must match.
type plainPersona Persona

func reference(t *testing.T, p Persona) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(plainPersona(p)); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func samplePersona(name, reason string, gen int) Persona {
	created := time.Date(2026, 8, 4, 9, 30, 0, 123456789, time.UTC)
	retired := created.Add(90 * time.Minute).Truncate(time.Second)
	return Persona{ID: "0123456789abcdef", Name: name, Address: "work/core/lead", Scope: "work", Project: "core",
		Role: "lead", Profile: ProfileProjectLead, Generation: gen, SessionLineage: "ses-1", CharacterHash: "sha256:ab",
		Repository: "/src/core", Human: "human:ada", State: StateRetired, CreatedAt: created, ActivatedAt: &created,
		RetiredAt: &retired, RetireReason: reason}
}

func checkCodec(t *testing.T, p Persona) {
	t.Helper()
	got := p.AppendJSON(nil)
	if want := reference(t, p); !bytes.Equal(got, want) {
		t.Fatalf("AppendJSON differs from encoding/json\n got %s\nwant %s", got, want)
	}
	var viaStd plainPersona
	if err := json.Unmarshal(got, &viaStd); err != nil {
		t.Fatalf("AppendJSON wrote invalid JSON: %v\n%s", err, got)
	}
	q, err := decodePersona(got)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := q.AppendJSON(nil), Persona(viaStd).AppendJSON(nil); !bytes.Equal(a, b) {
		t.Fatalf("decodePersona and encoding/json disagree\n got %s\nwant %s", a, b)
	}
}

func TestCodecMatchesEncodingJSON(t *testing.T) {
	for _, name := range []string{"Spica", "Rijl al Awwa", "Mönch", "O'Neil", `quote " back \ slash`, "ctl\x00\x01\x1f\n\r\t\b\f",
		"bad utf8 \xff\xfe", "sep \u2028 \u2029", "<html> & co", "emoji 🙂", ""} {
		checkCodec(t, samplePersona(name, name, 3))
	}
	p := samplePersona("Heze", "", 1)
	p.ActivatedAt, p.RetiredAt, p.State = nil, nil, StatePending
	checkCodec(t, p)
}

// Records written by encoding/json (other key order, escapes, spaces) still
// decode: the fast path declines and encoding/json reads them.
func TestDecodeFallback(t *testing.T) {
	p := samplePersona("Zaniah \"Z\"", "r", 2)
	indented, _ := json.MarshalIndent(plainPersona(p), "", "  ")
	q, err := decodePersona(indented)
	if err != nil || !bytes.Equal(q.AppendJSON(nil), p.AppendJSON(nil)) {
		t.Errorf("fallback decode = %+v, %v", q, err)
	}
	if _, ok := fastDecode(indented); ok {
		t.Errorf("fast path accepted indented JSON")
	}
	if _, ok := fastDecode(p.AppendJSON(nil)); ok {
		t.Errorf("fast path accepted a name with escapes")
	}
	if _, ok := fastDecode(samplePersona("Zaniah", "r", 2).AppendJSON(nil)); !ok {
		t.Errorf("fast path declined a canonical record")
	}
	if _, err := decodePersona([]byte("{not json")); err == nil {
		t.Errorf("garbage decoded")
	}
}

// FuzzPersonaCodec: any strings and generation round-trip, byte-identical
// to encoding/json.
func FuzzPersonaCodec(f *testing.F) {
	f.Add("Spica", "reason", 1)
	f.Add("a\"b\\c\x00\xff\u2028", "", 0)
	f.Fuzz(func(t *testing.T, name, reason string, gen int) {
		checkCodec(t, samplePersona(name, reason, gen))
	})
}

// FuzzDecodePersona: no input panics, and whatever the fast path accepts,
// encoding/json accepts with the same result.
func FuzzDecodePersona(f *testing.F) {
	f.Add(samplePersona("Spica", "r", 1).AppendJSON(nil))
	f.Add([]byte(`{"generation":01}`))
	f.Add([]byte(`{"created_at":null,"id":"x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, ok := fastDecode(data)
		decodePersona(data)
		if !ok {
			return
		}
		var std plainPersona
		if err := json.Unmarshal(data, &std); err != nil {
			t.Fatalf("fast path accepted what encoding/json refuses (%v): %q", err, data)
		}
		if a, b := p.AppendJSON(nil), Persona(std).AppendJSON(nil); !bytes.Equal(a, b) {
			t.Fatalf("fast path and encoding/json disagree on %q\n got %s\nwant %s", data, a, b)
		}
	})
}

// A seat record as encoding/json writes it decodes on the fast path, and
// to what encoding/json reads; other shapes fall back with the same result.
func TestDecodeSeatMatchesEncodingJSON(t *testing.T) {
	for _, s := range []seatRecord{
		{Holder: "0123456789abcdef", History: []string{"fedcba9876543210", "0123456789abcdef"}},
		{Holder: "", History: []string{"fedcba9876543210"}},
		{Holder: "a"},
		{Holder: "a", History: []string{}},
		{Holder: `q"uote`, History: []string{`back\slash`, "bad \xff"}},
	} {
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		checkSeat(t, data)
	}
	if _, ok := fastDecodeSeat([]byte(`{"holder":"a","history":["b","c"]}`)); !ok {
		t.Errorf("fast path declined a canonical seat")
	}
	for _, data := range []string{`{"holder": "a"}`, `{"holder":"a","extra":1}`, `{"history":["a",]}`, `{"holder":"a"}x`, `[]`, `{"holder":1}`} {
		if _, ok := fastDecodeSeat([]byte(data)); ok {
			t.Errorf("fast path accepted %s", data)
		}
		checkSeat(t, []byte(data))
	}
}

// checkSeat: decodeSeat reads data as encoding/json does, and whatever the
// fast path accepts encoding/json accepts with the same result.
func checkSeat(t *testing.T, data []byte) {
	t.Helper()
	var std seatRecord
	stdErr := json.Unmarshal(data, &std)
	got, err := decodeSeat(data)
	if (err == nil) != (stdErr == nil) || (err == nil && !reflect.DeepEqual(got, std)) {
		t.Fatalf("decodeSeat(%q) = %#v, %v; encoding/json: %#v, %v", data, got, err, std, stdErr)
	}
	if fast, ok := fastDecodeSeat(data); ok && (stdErr != nil || !reflect.DeepEqual(fast, std)) {
		t.Fatalf("fast path accepted %q as %#v; encoding/json: %#v, %v", data, fast, std, stdErr)
	}
}

// FuzzDecodeSeat: no input panics, and decodeSeat reads what encoding/json
// reads.
func FuzzDecodeSeat(f *testing.F) {
	f.Add([]byte(`{"holder":"a","history":["b","c"]}`))
	f.Add([]byte(`{"holder":"a","history":null}`))
	f.Add([]byte(`{"history":[],"holder":"a","holder":"b"}`))
	f.Fuzz(checkSeat)
}
