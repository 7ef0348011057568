package registry

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// recordKeysOf lists the keys of a JSON object in the order they appear,
// each with the kind of value it holds.
func recordKeysOf(t *testing.T, obj []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", obj)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		v, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, fmt.Sprintf("%s:%T", k, v))
	}
	return keys
}

// The scanner's key table and EncodePersona write the same keys, in the same
// order, with the same kinds of value: the one is not edited without the
// other.
func TestRecordKeysAreEncodePersonas(t *testing.T) {
	kinds := map[valueKind][2]string{
		text: {"string", "string"}, integer: {"json.Number", "json.Number"},
		instant: {"string", "string"}, instantOrNull: {"string", "<nil>"},
	}
	full := samplePersona("Spica", "why", 2)
	full.RefusedAt = full.ActivatedAt
	bare := samplePersona("Spica", "", 1)
	bare.ActivatedAt, bare.RetiredAt = nil, nil
	for i, p := range []Persona{full, bare} {
		var want []string
		for _, f := range recordKeys {
			want = append(want, f.key+":"+kinds[f.kind][i])
		}
		if got := recordKeysOf(t, encoded(p)); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("EncodePersona writes\n%v\nthe scanner reads\n%v", got, want)
		}
	}
}

// hostilePersona holds, in text a persona may have written, every escape
// appendString writes.
func hostilePersona() Persona {
	p := samplePersona("ctl\x00\x1b]0;x\x07 \"q\" \\ \n\t\r\b\f", "sep \u2028\u2029 <&> 🙂 Mönch", 3)
	p.State = StateRetired
	return p
}

// A record in EncodePersona's form is passed through as it is (not copied,
// not rewritten), with its list fields read.
func TestNewRecordKeepsCanonicalBytes(t *testing.T) {
	bare := samplePersona("Heze", "", 1)
	bare.ActivatedAt, bare.RetiredAt, bare.State = nil, nil, StatePending
	neg := samplePersona("Alcor", "", -4)
	for _, p := range []Persona{samplePersona("Spica", "", 1), bare, hostilePersona(), neg} {
		data := encoded(p)
		if _, n, ok := scanRecord(data); !ok || n != len(data) {
			t.Errorf("canonical record not recognised: %s", data)
			continue
		}
		r, err := NewRecord(data)
		if err != nil {
			t.Fatal(err)
		}
		if &r.JSON()[0] != &data[0] || !bytes.Equal(r.JSON(), data) {
			t.Errorf("canonical record was rewritten: %s", r.JSON())
		}
		if r.ID() != p.ID || r.Address() != p.Address || r.Generation() != p.Generation || r.State() != p.State {
			t.Errorf("record fields = %q %q %d %q, want those of %+v", r.ID(), r.Address(), r.Generation(), r.State(), p)
		}
		back, err := r.Persona()
		if err != nil || !bytes.Equal(encoded(back), data) {
			t.Errorf("Persona() = %+v, %v", back, err)
		}
	}
}

// Any other JSON of the record — written by encoding/json, indented, with
// times in another zone or with trailing zeros, escapes written otherwise —
// is read and written again in EncodePersona's form.
func TestNewRecordRewritesOtherForms(t *testing.T) {
	p := hostilePersona()
	canon := encoded(p)
	indented, _ := json.MarshalIndent(plainPersona(p), "", "  ")
	htmlEscaped, _ := json.Marshal(plainPersona(samplePersona("<b>", "a&b", 2)))
	zoned := bytes.Replace(encoded(samplePersona("Spica", "", 1)), []byte(`"2026-08-04T09:30:00.123456789Z"`),
		[]byte(`"2026-08-04T11:30:00.123456789+02:00"`), 1)
	zeros := bytes.Replace(encoded(samplePersona("Spica", "", 1)), []byte(`"2026-08-04T11:00:00Z"`),
		[]byte(`"2026-08-04T11:00:00.000Z"`), 1)
	lowerHex := bytes.Replace(canon, []byte(`\u001b`), []byte(`\u001B`), 1)
	// U+FFFD escaped reads back as U+FFFD, which EncodePersona writes as it is
	// (invalid UTF-8 too).
	replaced := bytes.Replace(encoded(samplePersona("bad \xff", "", 1)), []byte("\uFFFD"), []byte(`\ufffd`), 1)
	solidus := bytes.Replace(encoded(samplePersona("a/b", "", 1)), []byte(`"a/b"`), []byte(`"a\/b"`), 1)
	for name, data := range map[string][]byte{"indented": indented, "html escaped": htmlEscaped, "zoned": zoned,
		"trailing zeros": zeros, "upper hex": lowerHex, "escaped solidus": solidus,
		"replacement": replaced} {
		if bytes.Equal(data, canon) {
			t.Fatalf("%s: the test's input is canonical already", name)
		}
		if _, _, ok := scanRecord(data); ok {
			t.Errorf("%s: scanner took a record EncodePersona would write otherwise: %s", name, data)
		}
		want, err := DecodePersona(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r, err := NewRecord(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(r.JSON(), encoded(want)) || r.Address() != want.Address || r.State() != want.State {
			t.Errorf("%s: record = %s", name, r.JSON())
		}
	}
	for _, bad := range []string{"", "{", `{"id":"x"`, "[1]", `{"generation":"one"}`} {
		if _, err := NewRecord([]byte(bad)); err == nil {
			t.Errorf("NewRecord(%q) accepted", bad)
		}
	}
}

// FuzzRecord: no input panics; a record NewRecord accepts is EncodePersona of
// what the input decodes to, its list fields are that persona's, and the
// scanner takes only what EncodePersona writes.
func FuzzRecord(f *testing.F) {
	f.Add(encoded(samplePersona("Spica", "r", 1)))
	f.Add(encoded(hostilePersona()))
	bare := samplePersona("Heze", "", 0)
	bare.ActivatedAt, bare.RetiredAt = nil, nil
	f.Add(encoded(bare))
	f.Add([]byte(`{"id":"a","generation":-0}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, n, scanned := scanRecord(data)
		scanned = scanned && n == len(data)
		r, err := NewRecord(data)
		p, derr := DecodePersona(data)
		if (err == nil) != (derr == nil) {
			t.Fatalf("NewRecord: %v, decodePersona: %v, for %q", err, derr, data)
		}
		if err != nil {
			return
		}
		want := encoded(p)
		if !bytes.Equal(r.JSON(), want) {
			t.Fatalf("record of %q is\n%s\nwant\n%s", data, r.JSON(), want)
		}
		if scanned && !bytes.Equal(data, want) {
			t.Fatalf("scanner took %q, which EncodePersona writes as %s", data, want)
		}
		if r.ID() != p.ID || r.Address() != p.Address || r.Generation() != p.Generation || r.State() != p.State {
			t.Fatalf("record fields %q %q %d %q of %q", r.ID(), r.Address(), r.Generation(), r.State(), data)
		}
	})
}

// plain8 is the byte loop's verdict on eight bytes at once: every byte
// value at every place of a word.
func TestPlain8(t *testing.T) {
	for c := range 256 {
		for at := range 8 {
			w := []byte("abc XYZ~")
			w[at] = byte(c)
			want := c >= 0x20 && c < 0x80 && c != '"' && c != '\\'
			if got := plain8(binary.LittleEndian.Uint64(w)); got != want {
				t.Fatalf("plain8(%q) = %v", w, got)
			}
		}
	}
}

func TestWriteJSONArray(t *testing.T) {
	var empty bytes.Buffer
	if err := WriteJSONArray(&empty, nil); err != nil || empty.String() != "[]\n" {
		t.Errorf("empty = %q, %v", empty.String(), err)
	}
	// More than one piece of 64 KiB: 200 records of about 600 bytes.
	var list []Record
	for i := range 200 {
		r, err := RecordOf(samplePersona(fmt.Sprintf("Spica %d", i), "", i+1))
		if err != nil {
			t.Fatal(err)
		}
		list = append(list, r)
	}
	var out bytes.Buffer
	if err := WriteJSONArray(&out, list); err != nil {
		t.Fatal(err)
	}
	var back []plainPersona
	if err := json.Unmarshal(out.Bytes(), &back); err != nil || len(back) != 200 || back[199].Name != "Spica 199" {
		t.Fatalf("array of %d bytes: %d personas, %v", out.Len(), len(back), err)
	}
	if lines := bytes.Count(out.Bytes(), []byte("\n")); lines != 202 {
		t.Errorf("want one persona per line, got %d lines", lines)
	}
	if !bytes.HasPrefix(out.Bytes(), []byte("[\n  {")) || !bytes.HasSuffix(out.Bytes(), []byte("}\n]\n")) {
		t.Errorf("array = %.40q … %q", out.String(), out.Bytes()[out.Len()-10:])
	}
}

// canonicalTimeReference is canonicalTime by time's own parser and
// formatter: a string appendTime writes for the time it parses to.
func canonicalTimeReference(s []byte) bool {
	var t time.Time
	if t.UnmarshalText(s) != nil {
		return false
	}
	return string(t.UTC().AppendFormat(nil, time.RFC3339Nano)) == string(s)
}

// canonicalTime agrees with time's parser and formatter: on every byte at
// every place of a few times, and on many times made of random fields,
// out-of-range ones (month 13, 31 April, 29 February, second 60) included.
func TestCanonicalTime(t *testing.T) {
	check := func(s []byte) {
		t.Helper()
		if got, want := canonicalTime(s), canonicalTimeReference(s); got != want {
			t.Fatalf("canonicalTime(%q) = %v, time says %v", s, got, want)
		}
	}
	for _, base := range []string{"2026-08-04T09:30:00Z", "2024-02-29T23:59:59.123456789Z", "0000-01-01T00:00:00.1Z"} {
		for at := range len(base) {
			for c := range 256 {
				s := []byte(base)
				s[at] = byte(c)
				check(s)
			}
			check([]byte(base[:at] + base[at+1:]))
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 50_000 {
		s := fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d", rng.IntN(10000), rng.IntN(14), rng.IntN(33), rng.IntN(25), rng.IntN(61), rng.IntN(61))
		if k := rng.IntN(12); k > 0 { // up to 11 digits: more than a time holds
			s += "." + fmt.Sprintf("%011d", rng.Int64N(100_000_000_000))[:k]
		}
		check([]byte(s + "Z"))
	}
}
