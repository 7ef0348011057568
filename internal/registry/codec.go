package registry

import (
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/virgo-hub/virgo-tui/internal/jsonscan"
)

// The persona record is stored as JSON and printed as the same JSON by
// -o json. encoding/json's reflection costs several microseconds per record
// each way, which a 10,000-persona `persona list -o json` cannot afford
// (goal: under 100 ms), so the record has a hand-written encoder and a fast
// decoder for exactly the shape the encoder writes. Anything else — other
// key order, whitespace, escapes, unknown keys — goes to encoding/json, so
// the fast path is an optimisation, never a second format.

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

// decodePersona reads a stored persona record.
func decodePersona(data []byte) (Persona, error) {
	if p, ok := fastDecode(data); ok {
		return p, nil
	}
	var p Persona
	err := json.Unmarshal(data, &p)
	return p, err
}

// fastDecode parses a compact JSON object whose keys are Persona fields and
// whose values are plain strings (no escapes, valid UTF-8), integers or
// null. It reports ok=false for anything else, and decodePersona then falls
// back to encoding/json, which gives the same result on what both accept.
func fastDecode(data []byte) (p Persona, ok bool) {
	d := jsonscan.New(data)
	if !d.Object(func(key string) bool { return personaField(&d, &p, key) }) || !d.Done() {
		return Persona{}, false
	}
	return p, true
}

func personaField(d *jsonscan.Scanner, p *Persona, key string) bool {
	switch key {
	case "generation":
		n, ok := d.Int()
		p.Generation = n
		return ok
	case "created_at":
		t, ok := d.Time()
		if ok && t != nil {
			p.CreatedAt = *t
		}
		return ok && t != nil
	case "activated_at":
		t, ok := d.Time()
		p.ActivatedAt = t
		return ok
	case "retired_at":
		t, ok := d.Time()
		p.RetiredAt = t
		return ok
	case "refused_at":
		t, ok := d.Time()
		p.RefusedAt = t
		return ok
	}
	dst := stringField(p, key)
	if dst == nil {
		return false
	}
	s, ok := d.Str()
	*dst = s
	return ok
}

func stringField(p *Persona, key string) *string {
	switch key {
	case "id":
		return &p.ID
	case "name":
		return &p.Name
	case "address":
		return &p.Address
	case "scope":
		return &p.Scope
	case "project":
		return &p.Project
	case "role":
		return &p.Role
	case "profile":
		return (*string)(&p.Profile)
	case "session_lineage":
		return &p.SessionLineage
	case "character_hash":
		return &p.CharacterHash
	case "repository":
		return &p.Repository
	case "human":
		return &p.Human
	case "state":
		return (*string)(&p.State)
	case "stamp_hash":
		return &p.StampHash
	case "retire_reason":
		return &p.RetireReason
	case "refuse_reason":
		return &p.RefuseReason
	}
	return nil
}

// decodeSeat reads a stored seat record. A seat is read on every
// confirmation request routed to a lead (who holds the owning lead's
// seat), so it has a fast path too: the compact JSON encoding/json writes
// for a seatRecord, plain strings only; anything else goes to
// encoding/json.
func decodeSeat(data []byte) (seatRecord, error) {
	if s, ok := fastDecodeSeat(data); ok {
		return s, nil
	}
	var s seatRecord
	err := json.Unmarshal(data, &s)
	return s, err
}

// fastDecodeSeat parses {"holder":"…","history":["…",…]} (history may be
// null) with plain strings (no escapes, valid UTF-8), as decodeSeat's fast
// path; ok=false for anything else.
func fastDecodeSeat(data []byte) (s seatRecord, ok bool) {
	d := jsonscan.New(data)
	read := d.Object(func(key string) (ok bool) {
		switch key {
		case "holder":
			s.Holder, ok = d.Str()
		case "history":
			s.History, ok = d.Strs()
		}
		return ok
	})
	if !read || !d.Done() {
		return seatRecord{}, false
	}
	return s, true
}
