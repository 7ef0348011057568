package hubapi

import (
	"bytes"
	"errors"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
)

// Decode reads data, one JSON value, into v: the one decoder of the wire,
// for the hub reading a request and a client reading an answer alike. It
// is strictjson.Decode (encoding/json/v2's semantics, checked in one pass:
// a name given twice in any object, invalid UTF-8, a member v has no field
// for — a typo is not ignored; identity fields are accepted and ignored,
// see IdentityClaims — and anything after the value are refused; names
// match exactly). A refusal is an *APIError naming what is wrong and
// where: ErrInvalidUTF8 for bytes that are not UTF-8, ErrMalformedJSON for
// everything else.
func Decode(data []byte, v any) error {
	err := strictjson.Decode(data, v)
	if err == nil {
		return nil
	}
	if errors.Is(err, strictjson.ErrInvalidUTF8) {
		return Errorf(ErrInvalidUTF8, "%v", err)
	}
	if errors.Is(err, strictjson.ErrUnknownMember) {
		return Errorf(ErrMalformedJSON, "%v; see docs/api.md for the fields of each body", err)
	}
	return Errorf(ErrMalformedJSON, "%v", err)
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
