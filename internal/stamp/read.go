package stamp

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/gowebpki/jcs"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
)

// versionProbe reads only the version keys: v3 has schema_version, v1 and v2
// had version.
type versionProbe struct {
	SchemaVersion jsontext.Value `json:"schema_version"`
	Version       jsontext.Value `json:"version"`
}

// Read dispatches on the stamp's version (v3, or the legacy v1/v2 readers),
// runs the validators and returns the in-memory stamp. It never panics and
// never modifies b.
func Read(b []byte) (Stamp, error) { return ReadSource("stamp", b) }

// ReadSource is Read with the name of the source for error messages. A file
// without an RFC 8785 canonical form (a duplicate key, which consumers'
// parsers could resolve differently) has no hash and is refused. The JSON
// decoder names a duplicate key itself (see decodeProblem); the check here
// is for what it takes and JCS does not (a number beyond IEEE 754).
func ReadSource(source string, b []byte) (Stamp, error) {
	if _, err := jcs.Transform(b); err != nil && jsontext.Value(b).IsValid() {
		return Stamp{}, problems(source, ErrInvalidStamp, []Problem{{Rule: RuleCanonical,
			Message: "no RFC 8785 canonical form, so no hash: " + err.Error()}})
	}
	return readHashed(source, b)
}

// readHashed is ReadSource for bytes already known to canonicalize (Load has
// hashed them).
func readHashed(source string, b []byte) (Stamp, error) {
	var probe versionProbe
	if err := strictjson.DecodeOpen(b, &probe); err != nil {
		return Stamp{}, undecodable(source, err)
	}
	switch {
	case string(probe.SchemaVersion) == "3":
		return validateV3(b, source)
	case probe.SchemaVersion == nil && string(probe.Version) == "1":
		return readV1(source, b)
	case probe.SchemaVersion == nil && string(probe.Version) == "2":
		return readV2(source, b)
	}
	v := string(probe.SchemaVersion)
	if v == "" {
		v = string(probe.Version)
	}
	if v == "" {
		v = "none"
	}
	return Stamp{}, problems(source, ErrUnknownVersion, []Problem{{Rule: RuleSchemaVersion, Field: "schema_version",
		Message: fmt.Sprintf("version %s has no reader; this build reads v1, v2 and v3", v)}})
}

// validateV3 runs the JSON Schema and then the semantic validator over a v3
// document and lists every problem of both.
func validateV3(b []byte, source string) (Stamp, error) {
	var s Stamp
	if err := strictjson.Decode(b, &s); err != nil {
		// Name the fields with the schema; a stamp that does not decode
		// cannot be checked further.
		return Stamp{}, problems(source, ErrInvalidStamp, append(schemaOf(b), decodeProblem(err)))
	}
	return validStamp(s, b, source)
}

// validStamp returns s when its file bytes b pass the schema and s passes
// the semantic validator; otherwise every problem of both.
func validStamp(s Stamp, b []byte, source string) (Stamp, error) {
	ps := append(schemaOf(b), Semantic(s)...)
	if err := problems(source, ErrInvalidStamp, ps); err != nil {
		return Stamp{}, err
	}
	return s, nil
}

// schemaOf checks bytes against schema v3.
func schemaOf(b []byte) []Problem {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return []Problem{{Rule: RuleJSON, Message: err.Error()}}
	}
	return schemaProblems(doc)
}

// undecodable is the refusal of stamp bytes from source that the JSON
// decoder refused.
func undecodable(source string, err error) error {
	return problems(source, ErrInvalidStamp, []Problem{decodeProblem(err)})
}

// decodeProblem is a refusal of the JSON decoder in a stamp's terms: a key
// given twice is the canonical-form rule (two readers could resolve it
// differently, and it has no RFC 8785 form, so no hash); a key the stamp
// has no field for, or names only in another case, is the schema's (its
// objects admit no other property, and names match exactly); a value of
// the wrong kind is the schema's too; anything else is not JSON.
func decodeProblem(err error) Problem {
	var e *strictjson.Error
	if !errors.As(err, &e) {
		return Problem{Rule: RuleJSON, Message: err.Error()}
	}
	at := fieldPath(slices.Collect(jsontext.Pointer(e.Pointer).Tokens()))
	switch {
	case errors.Is(err, strictjson.ErrDuplicateName):
		return Problem{Rule: RuleCanonical, Field: at, Message: "no RFC 8785 canonical form, so no hash: " + e.Error()}
	case errors.Is(err, strictjson.ErrUnknownMember):
		return Problem{Rule: RuleSchema, Field: at, Message: fmt.Sprintf("unknown field %q (field names match exactly)", e.Name())}
	case errors.Is(err, strictjson.ErrType):
		return Problem{Rule: RuleSchema, Field: at, Message: "does not decode: " + e.Error()}
	}
	return Problem{Rule: RuleJSON, Message: e.Error()}
}
