package registry

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
)

// A Record is one persona record as EncodePersona writes it — the bytes the
// registry stores, the hub sends in a list and `persona list -o json`
// prints — with the four fields a list filters and sorts by. A list of
// 10,000 personas decoded into Persona values and encoded again on each
// side of the hub's socket took most of a 165 ms command (the goal
// is 100 ms); a Record passes the stored bytes through instead, once it has
// checked that they are exactly what EncodePersona would write for them.
type Record struct {
	json       []byte
	id         string
	address    string
	generation int
	state      State
}

// NewRecord reads a persona record: data as it is when it is already in the
// form EncodePersona writes (the registry writes no other), else decoded and
// written again in that form, so that every Record's JSON is
// EncodePersona(DecodePersona(data)). The Record keeps data; the caller does
// not change it afterwards.
func NewRecord(data []byte) (Record, error) {
	if r, n, ok := scanRecord(data); ok && n == len(data) {
		return r, nil
	}
	p, err := DecodePersona(data)
	if err != nil {
		return Record{}, fmt.Errorf("%w: %v", ErrRecord, err)
	}
	return RecordOf(p)
}

// RecordOf is p's Record.
func RecordOf(p Persona) (Record, error) {
	data, err := EncodePersona(p)
	if err != nil {
		return Record{}, fmt.Errorf("%w: %v", ErrRecord, err)
	}
	return Record{json: data, id: p.ID, address: p.Address, generation: p.Generation, state: p.State}, nil
}

// JSON is the record's object as EncodePersona writes it. It is the Record's
// own: the caller does not change it.
func (r Record) JSON() []byte { return r.json }

// ID is the generation's id.
func (r Record) ID() string { return r.id }

// Address is the seat's path.
func (r Record) Address() string { return r.address }

// Generation counts the seat's holders.
func (r Record) Generation() int { return r.generation }

// State is where the generation stands.
func (r Record) State() State { return r.state }

// Persona decodes the whole record.
func (r Record) Persona() (Persona, error) { return DecodePersona(r.json) }

// SortRecords orders rs as List orders personas: by address, then
// generation.
func SortRecords(rs []Record) {
	slices.SortFunc(rs, func(a, b Record) int {
		return cmp.Or(strings.Compare(a.address, b.address), cmp.Compare(a.generation, b.generation))
	})
}

// WriteJSONArray writes the records as a JSON array with one persona object
// per line — the `persona list -o json` document: valid JSON for jq, and one
// line per persona for grep. An empty list is "[]". It is written in pieces
// of 64 KiB, not built whole first (a 10,000-persona list is 5 MB).
func WriteJSONArray(w io.Writer, rs []Record) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteByte('[')
	for i, r := range rs {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n  ")
		bw.Write(r.json)
	}
	if len(rs) > 0 {
		bw.WriteByte('\n')
	}
	bw.WriteString("]\n")
	return bw.Flush()
}

// valueKind is the kind of value EncodePersona writes for a key.
type valueKind uint8

const (
	text          valueKind = iota // a string
	integer                        // a decimal integer
	instant                        // an RFC 3339 time in UTC
	instantOrNull                  // an instant, or null when absent
)

// listField names the values a Record keeps.
type listField uint8

const (
	otherField listField = iota
	idField
	addressField
	generationField
	stateField
)

// recordKeys are EncodePersona's keys in the order it writes them, each with
// the kind of value it writes (TestRecordKeysAreEncodePersonas holds the two
// together; docs/json-output.md documents them).
var recordKeys = [...]struct {
	key  string
	kind valueKind
	keep listField
}{
	{"id", text, idField},
	{"name", text, otherField},
	{"address", text, addressField},
	{"scope", text, otherField},
	{"project", text, otherField},
	{"role", text, otherField},
	{"profile", text, otherField},
	{"generation", integer, generationField},
	{"session_lineage", text, otherField},
	{"character_hash", text, otherField},
	{"repository", text, otherField},
	{"human", text, otherField},
	{"state", text, stateField},
	{"stamp_hash", text, otherField},
	{"composition", text, otherField},
	{"created_at", instant, otherField},
	{"activated_at", instantOrNull, otherField},
	{"retired_at", instantOrNull, otherField},
	{"retire_reason", text, otherField},
	{"refused_at", instantOrNull, otherField},
	{"refuse_reason", text, otherField},
}

// scanRecord reports whether b starts with exactly what EncodePersona writes
// for the persona that object decodes to, reads the Record's fields from
// it, and returns the object's length. Anything else (other key order or
// spacing, an escape EncodePersona would write otherwise, a time not in UTC)
// is ok=false, and NewRecord decodes and writes it again.
func scanRecord(b []byte) (Record, int, bool) {
	r := Record{}
	i := 0
	for k, f := range recordKeys {
		sep := byte(',')
		if k == 0 {
			sep = '{'
		}
		if len(b)-i < len(f.key)+4 || b[i] != sep || b[i+1] != '"' ||
			string(b[i+2:i+2+len(f.key)]) != f.key || b[i+2+len(f.key)] != '"' || b[i+3+len(f.key)] != ':' {
			return Record{}, 0, false
		}
		i += len(f.key) + 4
		var end int
		switch f.kind {
		case integer:
			n, e, ok := scanInt(b, i)
			if !ok {
				return Record{}, 0, false
			}
			r.generation, end = n, e
		case instantOrNull, instant:
			if f.kind == instantOrNull && len(b)-i >= 4 && string(b[i:i+4]) == "null" {
				end = i + 4
				break
			}
			e, plain, ok := scanText(b, i)
			if !ok || !plain || !canonicalTime(b[i+1:e-1]) {
				return Record{}, 0, false
			}
			end = e
		default:
			e, plain, ok := scanText(b, i)
			if !ok || !plain && f.keep != otherField {
				return Record{}, 0, false
			}
			switch v := b[i+1 : e-1]; f.keep {
			case idField:
				r.id = string(v)
			case addressField:
				r.address = string(v)
			case stateField:
				r.state = stateOf(v)
			}
			end = e
		}
		i = end
	}
	if i >= len(b) || b[i] != '}' {
		return Record{}, 0, false
	}
	r.json = b[:i+1]
	return r, i + 1, true
}

// scanText reads the JSON string at b[i] as appendString writes it; end is
// just past its closing quote, plain reports that it holds no escape (its
// bytes between the quotes are its value).
func scanText(b []byte, i int) (end int, plain, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false, false
	}
	escaped := false
	for j := i + 1; j < len(b); {
		if len(b)-j >= 8 && plain8(binary.LittleEndian.Uint64(b[j:])) {
			j += 8
			continue
		}
		switch c := b[j]; {
		case c == '"':
			if escaped && !canonicalEscapes(b[i:j+1]) {
				return 0, false, false
			}
			return j + 1, !escaped, true
		case c == '\\':
			escaped = true
			j += 2 // the escaped byte; a \u's hex digits are read as text
		case c < 0x20:
			return 0, false, false
		case c < utf8.RuneSelf:
			j++
		default:
			r, n := utf8.DecodeRune(b[j:])
			if r == utf8.RuneError && n == 1 || r == '\u2028' || r == '\u2029' {
				return 0, false, false // appendString escapes these
			}
			j += n
		}
	}
	return 0, false, false
}

// plain8 reports whether the eight bytes of x are text appendString writes
// as it is: ASCII from 0x20 up, neither quote nor backslash.
func plain8(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q, bs := x^'"'*ones, x^'\\'*ones // a zero byte where x has a quote, a backslash
	return ((x-0x20*ones)&^x|x|(q-ones)&^q|(bs-ones)&^bs)&highs == 0
}

// canonicalEscapes reports whether a quoted string holding escapes is the
// way EncodePersona writes its value: rare (only text a persona wrote with
// control characters in it), so it is decoded and written again.
func canonicalEscapes(quoted []byte) bool {
	var s string
	if strictjson.Decode(quoted, &s) != nil {
		return false
	}
	again, err := jsonv2.Marshal(s, encodeOptions)
	return err == nil && bytes.Equal(again, quoted)
}

// scanInt reads the integer at b[i] as EncodePersona writes it: no
// leading zero, no "-0", and small enough that it cannot overflow.
func scanInt(b []byte, i int) (n, end int, ok bool) {
	j, neg := i, false
	if j < len(b) && b[j] == '-' {
		neg = true
		j++
	}
	start := j
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		n = n*10 + int(b[j]-'0')
		j++
	}
	digits := j - start
	if digits == 0 || digits > 18 || digits > 1 && b[start] == '0' || neg && n == 0 {
		return 0, 0, false
	}
	if neg {
		n = -n
	}
	return n, j, true
}

// canonicalTime reports whether s is a time as EncodePersona writes it: RFC
// 3339 in UTC (2006-01-02T15:04:05Z), its fraction of a second, if any,
// without a trailing zero. It is what time's parser and formatter say
// (TestCanonicalTime), read by hand: parsing and formatting again took a
// fifth of a 10,000-persona list's time.
func canonicalTime(s []byte) bool {
	n := len(s)
	if n < 20 || n == 21 || n > 30 || s[n-1] != 'Z' || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return false
	}
	if n > 20 && (s[19] != '.' || s[n-2] == '0') {
		return false
	}
	for _, i := range [...]int{0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18} {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	for _, c := range s[min(20, n-1) : n-1] {
		if c < '0' || c > '9' {
			return false
		}
	}
	num := func(i int) int { return int(s[i]-'0')*10 + int(s[i+1]-'0') }
	year, month, day := num(0)*100+num(2), num(5), num(8)
	if month < 1 || month > 12 || day < 1 || num(11) > 23 || num(14) > 59 || num(17) > 59 {
		return false
	}
	days := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[month-1]
	if month == 2 && year%4 == 0 && (year%100 != 0 || year%400 == 0) {
		days = 29
	}
	return day <= days
}

// stateOf is the State named by v, one of the constants when it is one
// (no copy of the bytes).
func stateOf(v []byte) State {
	for _, s := range [...]State{StateActive, StatePending, StateRetired, StateRefused} {
		if string(v) == string(s) {
			return s
		}
	}
	return State(v)
}
