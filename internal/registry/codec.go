package registry

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
)

// The persona record is stored as JSON and printed as the same JSON by
// -o json. encoding/json's reflection costs several microseconds per record
// each way, which a 10,000-persona `persona list -o json` cannot afford
// (goal: under 100 ms), so the record has a hand-written encoder; a list
// passes its records through (Record) instead of decoding them. A record
// is read by encoding/json/v2's decoder (a name given twice or invalid
// UTF-8 is refused), as the wire is.

// AppendJSON appends p's JSON object (the keys of docs/json-output.md, in
// that order, times RFC 3339 in UTC, absent times null) to b.
func (p Persona) AppendJSON(b []byte) []byte {
	b = appendField(b, '{', "id", p.ID)
	b = appendField(b, ',', "name", p.Name)
	b = appendField(b, ',', "address", p.Address)
	b = appendField(b, ',', "scope", p.Scope)
	b = appendField(b, ',', "project", p.Project)
	b = appendField(b, ',', "role", p.Role)
	b = appendField(b, ',', "profile", string(p.Profile))
	b = append(b, `,"generation":`...)
	b = strconv.AppendInt(b, int64(p.Generation), 10)
	b = appendField(b, ',', "session_lineage", p.SessionLineage)
	b = appendField(b, ',', "character_hash", p.CharacterHash)
	b = appendField(b, ',', "repository", p.Repository)
	b = appendField(b, ',', "human", p.Human)
	b = appendField(b, ',', "state", string(p.State))
	b = appendField(b, ',', "stamp_hash", p.StampHash)
	b = appendField(b, ',', "composition", p.Composition)
	b = appendTime(b, "created_at", &p.CreatedAt)
	b = appendTime(b, "activated_at", p.ActivatedAt)
	b = appendTime(b, "retired_at", p.RetiredAt)
	b = appendField(b, ',', "retire_reason", p.RetireReason)
	b = appendTime(b, "refused_at", p.RefusedAt)
	b = appendField(b, ',', "refuse_reason", p.RefuseReason)
	return append(b, '}')
}

// MarshalJSON makes json.Marshal and every encoder produce AppendJSON's bytes.
func (p Persona) MarshalJSON() ([]byte, error) { return p.AppendJSON(make([]byte, 0, 640)), nil }

func appendField(b []byte, sep byte, key, v string) []byte {
	b = append(b, sep, '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return appendString(b, v)
}

func appendTime(b []byte, key string, t *time.Time) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	if t == nil {
		return append(b, "null"...)
	}
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string: quotes, backslashes and control
// characters escaped, invalid UTF-8 replaced by U+FFFD, U+2028 and U+2029
// escaped as encoding/json does (they break JavaScript string literals).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			b = append(b, c)
			i++
			continue
		}
		if c < utf8.RuneSelf {
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\t':
				b = append(b, '\\', 't')
			case '\r':
				b = append(b, '\\', 'r')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// DecodePersona reads a stored persona record.
func DecodePersona(data []byte) (Persona, error) {
	var p Persona
	err := json.Unmarshal(data, &p)
	return p, err
}
