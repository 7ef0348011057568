package stamp

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/gowebpki/jcs"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// versionProbe reads only the version keys: v3 has schema_version, v1 and v2
// had version.
type versionProbe struct {
	SchemaVersion json.RawMessage `json:"schema_version"`
	Version       json.RawMessage `json:"version"`
}

// Read dispatches on the stamp's version (v3, or the legacy v1/v2 readers),
// runs the validators and returns the in-memory stamp. It never panics and
// never modifies b.
func Read(b []byte) (Stamp, error) { return ReadSource("stamp", b) }

// ReadSource is Read with the name of the source for error messages. A file
// without an RFC 8785 canonical form (a duplicate key, which consumers'
// parsers could resolve differently) has no hash and is refused.
func ReadSource(source string, b []byte) (Stamp, error) {
	if _, err := jcs.Transform(b); err != nil && json.Valid(b) {
		return Stamp{}, problems(source, ErrInvalidStamp, []Problem{{Rule: RuleCanonical,
			Message: "no RFC 8785 canonical form, so no hash: " + err.Error()}})
	}
	return readHashed(source, b)
}

// readHashed is ReadSource for bytes already known to canonicalize (Load has
// hashed them).
func readHashed(source string, b []byte) (Stamp, error) {
	var probe versionProbe
	if err := json.Unmarshal(b, &probe); err != nil {
		return Stamp{}, problems(source, ErrInvalidStamp, []Problem{{Rule: RuleJSON, Message: err.Error()}})
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
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		// Name the fields with the schema; a stamp that does not decode
		// cannot be checked further.
		ps := schemaOf(b)
		ps = append(ps, Problem{Rule: RuleSchema, Message: "does not decode: " + err.Error()})
		return Stamp{}, problems(source, ErrInvalidStamp, ps)
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
