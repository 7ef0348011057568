// Package strictjson is the one JSON decoder of the module: the wire, the
// capability stamps, snapshot archives, the console's configuration files,
// a harness's hook input and the stored records all read JSON through it,
// with encoding/json/v2's semantics decided once, here. Names match
// exactly (not case-insensitively, as encoding/json v1 matches them); a
// name given twice in any object, invalid UTF-8 and anything after the
// value are refused, in one pass. Whether a member the Go type has no
// field for is refused is the one choice left to the caller: Decode
// refuses it (a shape that is ours, where a typo must not be ignored),
// DecodeOpen skips it (a shape that is not ours, or a reader of a part).
//
// It is a leaf: it imports only the standard library and the JSON
// library, so that every floor (stamp, store, session, the wire contract)
// may import it.
package strictjson

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// The kinds of refusal, each a named error an *Error wraps: callers map
// them onto their own codes and rules (the hub's wire error codes, a
// stamp's problem rules).
var (
	// ErrInvalidUTF8: bytes that are not UTF-8, inside a string or out.
	ErrInvalidUTF8 = errors.New("the JSON text is not valid UTF-8")
	// ErrDuplicateName: a name given twice in one object, which two
	// readers could resolve differently (encoding/json v1 keeps the last).
	ErrDuplicateName = errors.New("a name is given twice in one object")
	// ErrUnknownMember: a member the Go type has no field for (Decode only).
	ErrUnknownMember = errors.New("unknown member")
	// ErrTrailingData: anything but white space after the one value.
	ErrTrailingData = errors.New("trailing data after the JSON value")
	// ErrTruncated: the text ends in the middle of a value.
	ErrTruncated = errors.New("the JSON text ends in the middle of a value")
	// ErrSyntax: any other text that is not JSON.
	ErrSyntax = errors.New("malformed JSON")
	// ErrType: JSON of another kind than the Go type holds (a number for a
	// string), or a value the type's own decoder refuses.
	ErrType = errors.New("a JSON value of the wrong kind")
)

// Error is one refusal: its kind (one of the Err values above, which
// errors.Is finds), where it is, and a sentence naming both.
type Error struct {
	// Kind is the named error: ErrInvalidUTF8, ErrDuplicateName, ...
	Kind error
	// Pointer is the RFC 6901 JSON Pointer of the value concerned ("" for
	// the whole text, "/tools/3/name" deep inside).
	Pointer string
	// Offset is the byte offset in the text where the decoder stopped, or
	// -1 when it is not known.
	Offset int64
	msg    string
}

// Error is the sentence: what is wrong, and where.
func (e *Error) Error() string { return e.msg }

// Unwrap is the kind, so that errors.Is(err, ErrDuplicateName) holds.
func (e *Error) Unwrap() error { return e.Kind }

// Name is the last token of Pointer: the member or index concerned.
func (e *Error) Name() string { return jsontext.Pointer(e.Pointer).LastToken() }

// closed and open are the two option sets; they differ only in whether an
// unknown member is refused. Durations are read as integer nanoseconds,
// which is how every encoder of this module (encoding/json) writes them.
var (
	closed = json.JoinOptions(json.RejectUnknownMembers(true), jsonv1.FormatDurationAsNano(true))
	open   = json.JoinOptions(json.RejectUnknownMembers(false), jsonv1.FormatDurationAsNano(true))
)

// Decode reads data, one JSON value, into v, refusing a member v has no
// field for. A refusal is an *Error.
func Decode(data []byte, v any) error { return decode(data, v, closed) }

// DecodeOpen reads data, one JSON value, into v, skipping members v has no
// field for (and refusing everything else Decode refuses). It is for input
// whose shape another program owns and grows, and for a reader that wants
// a part of a value (a version probe, a record's few fields).
func DecodeOpen(data []byte, v any) error { return decode(data, v, open) }

// A Decoder reads many values one after another, each as DecodeOpen reads
// one. The JSON library's decoder keeps the short strings it made (a cache
// of 256) while it is reused, where DecodeOpen's drops them with each
// value: a list of 10,000 stored records makes a repeated project, role or
// state once, not once a record. The zero Decoder is ready; it is not
// safe for concurrent use.
type Decoder struct {
	r   bytes.Reader
	dec *jsontext.Decoder
}

// DecodeOpen reads data, one JSON value, into v as the package's
// DecodeOpen does, with d's decoder.
func (d *Decoder) DecodeOpen(data []byte, v any) error {
	d.r.Reset(data)
	if d.dec == nil {
		d.dec = jsontext.NewDecoder(&d.r, open)
	} else {
		d.dec.Reset(&d.r, open)
	}
	if err := json.UnmarshalDecode(d.dec, v); errors.Is(err, io.EOF) {
		return &Error{ErrTruncated, "", 0, "malformed JSON: the text ends in the middle of a value"}
	} else if err != nil {
		return refusal(data, err)
	}
	off := d.dec.InputOffset()
	if _, err := d.dec.ReadToken(); err != io.EOF {
		return &Error{ErrTrailingData, "", off, fmt.Sprintf("trailing data after the JSON value, at byte %d; give one value", off)}
	}
	return nil
}

func decode(data []byte, v any, opts json.Options) error {
	err := json.Unmarshal(data, v, opts)
	if err == nil {
		return nil
	}
	return refusal(data, err)
}

// refusal names what the decoder refused, by kind: the decoder's own
// text says it in Go's terms, not the document's.
func refusal(data []byte, err error) *Error {
	var syn *jsontext.SyntacticError
	var sem *json.SemanticError
	switch {
	case errors.As(err, &syn):
		off, at := syn.ByteOffset, string(syn.JSONPointer)
		if off >= 0 && off < int64(len(data)) {
			if r, n := utf8.DecodeRune(data[off:]); r == utf8.RuneError && n == 1 {
				return &Error{ErrInvalidUTF8, at, off, fmt.Sprintf("the JSON text is not valid UTF-8 (at byte %d)", off)}
			}
		}
		switch {
		case errors.Is(syn.Err, io.ErrUnexpectedEOF):
			return &Error{ErrTruncated, at, off, "malformed JSON: the text ends in the middle of a value"}
		case errors.Is(syn.Err, jsontext.ErrDuplicateName):
			return &Error{ErrDuplicateName, at, off, fmt.Sprintf("key %q is given twice (at %s); give each key once", syn.JSONPointer.LastToken(), at)}
		case at == "" && off > 0 && jsontext.Value(bytes.TrimSpace(data[:off])).IsValid():
			return &Error{ErrTrailingData, at, off, fmt.Sprintf("trailing data after the JSON value, at byte %d; give one value", off)}
		}
		return &Error{ErrSyntax, at, off, fmt.Sprintf("malformed JSON at byte %d: %v", off, syn.Err)}
	case errors.As(err, &sem):
		off, at := sem.ByteOffset, string(sem.JSONPointer)
		field := at
		if len(field) > 0 {
			field = field[1:]
		}
		switch {
		case errors.Is(sem.Err, json.ErrUnknownName):
			return &Error{ErrUnknownMember, at, off, fmt.Sprintf("unknown field %q at %s", sem.JSONPointer.LastToken(), at)}
		case sem.Err != nil && field != "":
			return &Error{ErrType, at, off, fmt.Sprintf("field %q: %v", field, sem.Err)}
		case sem.Err != nil:
			return &Error{ErrType, at, off, fmt.Sprintf("malformed value: %v", sem.Err)}
		case field != "":
			return &Error{ErrType, at, off, fmt.Sprintf("field %q: expected %s, got JSON %s", field, goKind(sem), kindName(sem.JSONKind))}
		}
		return &Error{ErrType, at, off, fmt.Sprintf("the text is JSON %s; expected %s", kindName(sem.JSONKind), goKind(sem))}
	}
	return &Error{ErrSyntax, "", -1, fmt.Sprintf("malformed JSON: %v", err)}
}

// goKind names the Go type a semantic error expected, as a reader of the
// document would put it.
func goKind(sem *json.SemanticError) string {
	if sem.GoType == nil {
		return "another kind of value"
	}
	return sem.GoType.String()
}

// kindName names a kind of JSON value as a sentence would ("array", where
// jsontext.Kind says "[").
func kindName(k jsontext.Kind) string {
	switch k {
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	}
	return k.String()
}
