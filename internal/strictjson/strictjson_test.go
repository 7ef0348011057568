package strictjson

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// doc is a small shape of ours, with a nested object and a list.
type doc struct {
	Class string `json:"class"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
	Wait time.Duration `json:"wait"`
}

// Each refusal is named by its kind and says where. A name twice, a name
// in other case and invalid UTF-8 are read without complaint by
// encoding/json v1 (the last name wins, "Class" passes for "class", the
// bad byte becomes U+FFFD): that is why there is one decoder.
func TestEachRefusalIsNamed(t *testing.T) {
	for _, c := range []struct {
		name, text string
		kind       error
		pointer    string
		says       string
	}{
		{"a name twice", `{"class":"secretary","class":"coordinator"}`, ErrDuplicateName, "/class", `key "class" is given twice (at /class)`},
		{"a name twice, deep", `{"tools":[{"name":"a","name":"b"}]}`, ErrDuplicateName, "/tools/0/name", `key "name" is given twice (at /tools/0/name)`},
		{"a name in other case", `{"Class":"secretary"}`, ErrUnknownMember, "/Class", `unknown field "Class" at /Class`},
		{"an unknown member", `{"class":"x","force":true}`, ErrUnknownMember, "/force", `unknown field "force"`},
		{"invalid UTF-8", "{\"class\":\"secr\xffetary\"}", ErrInvalidUTF8, "/class", "not valid UTF-8 (at byte 14)"},
		{"trailing data", `{"class":"x"} {}`, ErrTrailingData, "", "trailing data after the JSON value, at byte 14"},
		{"truncated", `{"class":"x`, ErrTruncated, "/class", "ends in the middle of a value"},
		{"syntax", `{"class": }`, ErrSyntax, "/class", "malformed JSON at byte 10"},
		{"wrong kind", `{"class": 7}`, ErrType, "/class", `field "class": expected string, got JSON number`},
		{"wrong kind at the top", `[]`, ErrType, "", "the text is JSON array; expected strictjson.doc"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if v1Takes := c.kind == ErrDuplicateName || c.kind == ErrInvalidUTF8 || strings.Contains(c.name, "case"); v1Takes {
				if err := json.Unmarshal([]byte(c.text), new(doc)); err != nil {
					t.Fatalf("encoding/json v1 refuses %q (%v): the case shows nothing", c.text, err)
				}
			}
			var d doc
			err := Decode([]byte(c.text), &d)
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, c.kind) || e.Pointer != c.pointer || !strings.Contains(e.Error(), c.says) {
				t.Fatalf("Decode(%q) = %#v, want %v at %q saying %q", c.text, err, c.kind, c.pointer, c.says)
			}
		})
	}
}

// DecodeOpen skips a member the type has no field for, and refuses
// everything else Decode refuses: a part of a value is read under the
// same rules.
func TestDecodeOpenSkipsOnlyUnknownMembers(t *testing.T) {
	var d doc
	if err := DecodeOpen([]byte(`{"class":"x","added_by_a_newer_writer":{"a":[1]}}`), &d); err != nil || d.Class != "x" {
		t.Fatalf("DecodeOpen = %+v, %v; want the known member read, the other skipped", d, err)
	}
	var reused Decoder
	for text, kind := range map[string]error{
		`{"class":"x","class":"y"}`:     ErrDuplicateName,
		`{"other":1,"other":2}`:         ErrDuplicateName,
		"{\"other\":\"\xc3\"}":          ErrInvalidUTF8,
		`{"class":"x"}x`:                ErrTrailingData,
		`{"Class":"x","class":"y"}`:     nil,
		`{"class":"x","tools":[{}]} `:   nil,
		`{"class":"x","tools":[{"n"}]}`: ErrSyntax,
		"":                              ErrTruncated,
		`{"class":"x"} {}`:              ErrTrailingData,
	} {
		var d doc
		if err := DecodeOpen([]byte(text), &d); !errors.Is(err, kind) || (kind == nil) != (err == nil) {
			t.Errorf("DecodeOpen(%q) = %v, want %v", text, err, kind)
		}
		// A Decoder reused from value to value reads each the same.
		var e doc
		if err := reused.DecodeOpen([]byte(text), &e); !errors.Is(err, kind) || (kind == nil) != (err == nil) || e.Class != d.Class {
			t.Errorf("Decoder.DecodeOpen(%q) = %+v, %v, want %+v, %v", text, e, err, d, kind)
		}
	}
}

// A duration reads as encoding/json writes it, in integer nanoseconds:
// every encoder of the module is encoding/json.
func TestADurationReadsAsEncodingJSONWritesIt(t *testing.T) {
	b, err := json.Marshal(doc{Wait: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var d doc
	if err := Decode(b, &d); err != nil || d.Wait != 1500*time.Millisecond {
		t.Fatalf("Decode(%s) = %+v, %v; want 1.5s", b, d, err)
	}
}

// FuzzDecode: no input panics; every refusal is an *Error of a named kind,
// ErrInvalidUTF8 only for input that is not UTF-8; whatever is accepted is
// one valid JSON value (UTF-8, no name twice); and DecodeOpen refuses
// exactly what Decode does, but for the unknown members it skips; a
// reused Decoder accepts exactly what DecodeOpen accepts.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"class":"a","tools":[{"name":"x"}],"wait":5}`, `{"class":"a","class":"b"}`, `{"Class":"a"}`,
		"{\"class\":\"\xff\"}", `{"class":"a"} {}`, `{"class":`, `[]`, `null`, ``, `{"other":{"a":1,"a":2}}`,
	} {
		f.Add([]byte(seed))
	}
	kinds := []error{ErrInvalidUTF8, ErrDuplicateName, ErrUnknownMember, ErrTrailingData, ErrTruncated, ErrSyntax, ErrType}
	var reused Decoder
	f.Fuzz(func(t *testing.T, data []byte) {
		var closed, open, again doc
		err, openErr, reusedErr := Decode(data, &closed), DecodeOpen(data, &open), reused.DecodeOpen(data, &again)
		if (openErr == nil) != (reusedErr == nil) {
			t.Fatalf("%q: DecodeOpen says %v, a reused Decoder %v", data, openErr, reusedErr)
		}
		for _, err := range []error{err, openErr, reusedErr} {
			var e *Error
			if err == nil {
				continue
			}
			if !errors.As(err, &e) || e.Error() == "" || !slices.ContainsFunc(kinds, func(k error) bool { return errors.Is(err, k) }) {
				t.Fatalf("refusal of %q is %#v: no named kind", data, err)
			}
			if errors.Is(err, ErrInvalidUTF8) && utf8.Valid(data) {
				t.Fatalf("refusal of %q says invalid UTF-8, but it is UTF-8", data)
			}
		}
		if openErr == nil && (!utf8.Valid(data) || !jsontext.Value(data).IsValid()) {
			t.Fatalf("accepted %q, which is not one valid JSON value", data)
		}
		if err == nil && openErr != nil || err != nil && openErr == nil && !errors.Is(err, ErrUnknownMember) {
			t.Fatalf("%q: Decode says %v, DecodeOpen %v: they differ beyond unknown members", data, err, openErr)
		}
	})
}
