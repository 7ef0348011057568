package registry

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// plainPersona has Persona's fields and tags but not its methods, so
// encoding/json handles it by reflection: the reference the codec must match.
type plainPersona Persona

func reference(t *testing.T, p Persona) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	// encoding/json escapes the U+FFFD it writes for a byte of invalid
	// UTF-8; encoding/json/v2 writes the character, as both write a valid one.
	v := reflect.ValueOf(&p).Elem()
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.String {
			f.SetString(replaceInvalid(f.String()))
		}
	}
	if err := enc.Encode(plainPersona(p)); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// replaceInvalid is s with each byte of invalid UTF-8 replaced by U+FFFD.
func replaceInvalid(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r)
		i += size
	}
	return b.String()
}

// encoded is p's record; a time EncodePersona refuses ends the test.
func encoded(p Persona) []byte {
	b, err := EncodePersona(p)
	if err != nil {
		panic(err)
	}
	return b
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
	got := encoded(p)
	if want := reference(t, p); !bytes.Equal(got, want) {
		t.Fatalf("EncodePersona differs from encoding/json\n got %s\nwant %s", got, want)
	}
	var viaStd plainPersona
	if err := json.Unmarshal(got, &viaStd); err != nil {
		t.Fatalf("EncodePersona wrote invalid JSON: %v\n%s", err, got)
	}
	q, err := DecodePersona(got)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := encoded(q), encoded(Persona(viaStd)); !bytes.Equal(a, b) {
		t.Fatalf("DecodePersona and encoding/json disagree\n got %s\nwant %s", a, b)
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

// Records written by encoding/json (other key order, escapes, spaces)
// decode to the same persona; what is not one JSON record does not. A
// PersonaDecoder, reused from record to record, reads each as
// DecodePersona does.
func TestDecodeOtherForms(t *testing.T) {
	var reused PersonaDecoder
	for _, decode := range []func([]byte) (Persona, error){DecodePersona, reused.Decode} {
		p := samplePersona("Zaniah \"Z\"", "r", 2)
		indented, _ := json.MarshalIndent(plainPersona(p), "", "  ")
		q, err := decode(indented)
		if err != nil || !bytes.Equal(encoded(q), encoded(p)) {
			t.Errorf("fallback decode = %+v, %v", q, err)
		}
		for _, bad := range []string{`{"id":"a","id":"b"}`, "{not json", `{"id":"a"} {}`, `{"id":"a"} x`, "{\"id\":\"\xff\"}", ""} {
			if q, err := decode([]byte(bad)); err == nil {
				t.Errorf("%q decoded: %+v", bad, q)
			}
		}
		if q, err := decode(encoded(p)); err != nil || !bytes.Equal(encoded(q), encoded(p)) {
			t.Errorf("a record after refused ones = %+v, %v", q, err)
		}
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
