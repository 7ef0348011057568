package registry

import (
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
)

// The persona record is stored as JSON and printed as the same JSON by
// -o json: Persona's struct tags through encoding/json/v2, the one JSON
// library, both ways. A record is read by its decoder (a name given twice
// or invalid UTF-8 is refused), as the wire is.

// encodeOptions write a name a persona gave in invalid UTF-8 as U+FFFD
// rather than lose the record over it, and escape U+2028 and U+2029 (they
// end a JavaScript string literal), as encoding/json does.
var encodeOptions = json.JoinOptions(jsontext.AllowInvalidUTF8(true), jsontext.EscapeForJS(true))

// EncodePersona is p's record: the keys of docs/json-output.md in that
// order, times RFC 3339 in UTC, absent times null. It fails only for a
// time outside years 0 to 9999, which no clock gives.
func EncodePersona(p Persona) ([]byte, error) {
	p.CreatedAt = p.CreatedAt.UTC()
	p.ActivatedAt, p.RetiredAt, p.RefusedAt = inUTC(p.ActivatedAt), inUTC(p.RetiredAt), inUTC(p.RefusedAt)
	return json.Marshal(p, encodeOptions)
}

func inUTC(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// DecodePersona reads a stored persona record.
func DecodePersona(data []byte) (Persona, error) {
	var p Persona
	err := strictjson.DecodeOpen(data, &p)
	return p, err
}

// A PersonaDecoder reads stored persona records one after another, each
// as DecodePersona reads one, with one reused strictjson.Decoder: a list
// of 10,000 makes a repeated project, role, profile, human or state once,
// not once a record. The zero value is ready; it is not safe for
// concurrent use.
type PersonaDecoder struct {
	dec strictjson.Decoder
}

// Decode reads one stored persona record.
func (d *PersonaDecoder) Decode(data []byte) (Persona, error) {
	var p Persona
	err := d.dec.DecodeOpen(data, &p)
	return p, err
}
