package hubapi

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/virgo-hub/virgo-tui/internal/confirm"
)

// Each refusal of the one decoder is named: its code, and what it says
// (the hub sends both to a persona that sent the body).
func TestDecodeNamesEachRefusal(t *testing.T) {
	for _, c := range []struct {
		name, body string
		code       error
		says       string
	}{
		{"syntax", `{"tool": }`, ErrMalformedJSON, "malformed JSON at byte 9"},
		{"truncated", `{"tool": "get_ru`, ErrMalformedJSON, "ends in the middle of a value"},
		{"wrong type", `{"tool": 7}`, ErrMalformedJSON, `field "tool": expected string, got JSON number`},
		{"unknown member", `{"tool": "get_run", "force": true}`, ErrMalformedJSON, `unknown field "force" at /force`},
		{"a name in other case", `{"Tool": "get_run"}`, ErrMalformedJSON, `unknown field "Tool"`},
		{"trailing data", `{"tool": "get_run"} {}`, ErrMalformedJSON, "trailing data after the JSON value, at byte 20"},
		{"duplicate name", `{"tool": "a", "tool": "b"}`, ErrMalformedJSON, `key "tool" is given twice`},
		{"duplicate in a claim", `{"tool": "a", "requester": {"x": 1, "x": 2}}`, ErrMalformedJSON, `key "x" is given twice (at /requester/x)`},
		{"invalid UTF-8", "{\"tool\": \"bad \xff\"}", ErrInvalidUTF8, "not valid UTF-8 (at byte 14)"},
		{"invalid UTF-8 in a claim", "{\"requester\": \"\xc3\"}", ErrInvalidUTF8, "at byte 15"},
		{"invalid UTF-8 after the value", "{}\xff", ErrInvalidUTF8, "at byte 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var r OperationRequest
			err := Decode([]byte(c.body), &r)
			var ae *APIError
			if !errors.As(err, &ae) || !errors.Is(err, c.code) || !strings.Contains(ae.Msg, c.says) {
				t.Fatalf("Decode(%q) = %v, want %v saying %q", c.body, err, c.code, c.says)
			}
		})
	}
	var r OperationRequest
	if err := Decode([]byte(`{"tool":"get_run","target":"run:1","requester":"human:eve"}`), &r); err != nil || r.Tool != "get_run" || r.Target != "run:1" {
		t.Fatalf("a request with an identity claim: %+v, %v; want it read, the claim ignored", r, err)
	}
}

// A confirmation inside an answer is read in the same pass, under the same
// rules: a member it has no field for is refused where it stands.
func TestDecodeReadsAConfirmationUnderTheSameRules(t *testing.T) {
	var r confirm.Result
	err := Decode([]byte(`{"status":"pending","confirmation":{"id":"c-1","state":"pending","force":true}}`), &r)
	if !errors.Is(err, ErrMalformedJSON) || !strings.Contains(err.Error(), `unknown field "force" at /confirmation/force`) {
		t.Fatalf("a confirmation with an unknown member: %v, want it refused at /confirmation/force", err)
	}
}

// FuzzDecode: no input panics; a refusal is malformed_json, or
// invalid_encoding exactly when the input is not UTF-8 where the decoder
// stopped; and what is accepted is one valid JSON value (UTF-8, no name
// twice) whose re-encoding reads back the same.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{}`, `{"persona":"work/core/lead","tool":"workspace_write","target":"path:QUEUE.md","shape":"write:overwrite","correlation_id":"c-1"}`,
		`{"tool":"a","tool":"b"}`, `{"tool":"a"} x`, `{"requester":{"a":[1,{"b":2,"b":3}]}}`, "{\"tool\":\"\xff\"}", `{"Tool":"x"}`,
		`{"tool":"\u00e9\ud800"}`, ` {"tool" : "x" } `, `null`, `[`, "",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var r OperationRequest
		err := Decode(data, &r)
		if err != nil {
			var ae *APIError
			if !errors.As(err, &ae) || ae.Msg == "" || !errors.Is(err, ErrMalformedJSON) && !errors.Is(err, ErrInvalidUTF8) {
				t.Fatalf("Decode(%q) = %#v: not a named wire error", data, err)
			}
			if errors.Is(err, ErrInvalidUTF8) && utf8.Valid(data) {
				t.Fatalf("Decode(%q): %v, but the input is UTF-8", data, err)
			}
			return
		}
		if !utf8.Valid(data) || !jsontext.Value(data).IsValid() {
			t.Fatalf("Decode accepted %q, which is not one valid JSON value", data)
		}
		again, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var back OperationRequest
		if err := Decode(again, &back); err != nil || !reflect.DeepEqual(back, r) {
			t.Fatalf("%q read as %+v, re-encoded as %s, which reads as %+v (%v)", data, r, again, back, err)
		}
	})
}
