package hubapi

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Decode reads data, one JSON value, into v: the one decoder of the wire,
// for the hub reading a request and a client reading an answer alike. It
// has encoding/json/v2's semantics, checked in one pass: a name given twice
// in any object, invalid UTF-8, a member v has no field for (a typo is not
// ignored; identity fields are accepted and ignored, see IdentityClaims),
// and anything after the value are refused. Names match exactly, not
// case-insensitively. A refusal is an *APIError naming what is wrong and
// where: ErrInvalidUTF8 for bytes that are not UTF-8, ErrMalformedJSON for
// everything else.
func Decode(data []byte, v any) error {
	err := json.Unmarshal(data, v, json.RejectUnknownMembers(true))
	if err == nil {
		return nil
	}
	return decodeError(data, err)
}

// decodeError names what the decoder refused, by kind of error: the
// decoder's own text says it in Go's terms, not the request's.
func decodeError(data []byte, err error) error {
	var syn *jsontext.SyntacticError
	var sem *json.SemanticError
	switch {
	case errors.As(err, &syn):
		off := syn.ByteOffset
		if off >= 0 && off < int64(len(data)) {
			if r, n := utf8.DecodeRune(data[off:]); r == utf8.RuneError && n == 1 {
				return Errorf(ErrInvalidUTF8, "the JSON text is not valid UTF-8 (at byte %d)", off)
			}
		}
		switch {
		case errors.Is(syn.Err, io.ErrUnexpectedEOF):
			return Errorf(ErrMalformedJSON, "malformed JSON: the body ends in the middle of a value")
		case errors.Is(syn.Err, jsontext.ErrDuplicateName):
			return Errorf(ErrMalformedJSON, "key %q is given twice (at %s); send each field once", syn.JSONPointer.LastToken(), syn.JSONPointer)
		case syn.JSONPointer == "" && off > 0 && jsontext.Value(bytes.TrimSpace(data[:off])).IsValid():
			return Errorf(ErrMalformedJSON, "trailing data after the JSON value, at byte %d; send one value", off)
		}
		return Errorf(ErrMalformedJSON, "malformed JSON at byte %d: %v", off, syn.Err)
	case errors.As(err, &sem):
		field := strings.TrimPrefix(string(sem.JSONPointer), "/")
		switch {
		case errors.Is(sem.Err, json.ErrUnknownName):
			return Errorf(ErrMalformedJSON, "unknown field %q at %s; see docs/api.md for the fields of each body", sem.JSONPointer.LastToken(), sem.JSONPointer)
		case sem.Err != nil && field != "":
			return Errorf(ErrMalformedJSON, "field %q: %v", field, sem.Err)
		case sem.Err != nil:
			return Errorf(ErrMalformedJSON, "malformed value: %v", sem.Err)
		case field != "":
			return Errorf(ErrMalformedJSON, "field %q: expected %s, got JSON %s", field, goKind(sem), sem.JSONKind)
		}
		return Errorf(ErrMalformedJSON, "the body is JSON %s; expected %s", sem.JSONKind, goKind(sem))
	}
	return Errorf(ErrMalformedJSON, "malformed JSON: %v", err)
}

// goKind names the Go type a semantic error expected, as a reader of the
// wire would put it.
func goKind(sem *json.SemanticError) string {
	if sem.GoType == nil {
		return "another kind of value"
	}
	return sem.GoType.String()
}

// BodyKind names the kind of JSON value data holds, for a refusal of the
// wrong kind ("JSON null"), or "" when data does not start a value.
func BodyKind(data []byte) string {
	switch jsontext.Value(bytes.TrimSpace(data)).Kind() {
	case 'n':
		return "null"
	case 't', 'f':
		return "true or false"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case '[':
		return "an array"
	case '{':
		return "an object"
	}
	return ""
}
