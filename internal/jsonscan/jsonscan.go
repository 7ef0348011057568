// Package jsonscan reads the compact JSON that encoding/json writes, for
// the hand-written fast decoders of records read on every request (a
// persona, a seat, a confirmation request's answer). A Scanner accepts
// only plain values — strings without escapes, integers without a sign or
// fraction, true, false and null, no whitespace — and says so with ok=false
// on anything else, so that its caller hands the whole input to
// encoding/json: a fast path is an optimisation, never a second format.
package jsonscan

import (
	"strconv"
	"time"
	"unicode/utf8"
)

// Scanner reads one JSON text. Every string it returns is a substring of
// one copy of the input: one allocation per text, not one per field.
type Scanner struct {
	data []byte
	src  string
	i    int
}

// New is a Scanner at the start of data.
func New(data []byte) Scanner { return Scanner{data: data, src: string(data)} }

// Done reports whether the rest of the input is JSON whitespace, which
// encoding/json allows after a value (the hub ends each answer with a
// newline).
func (s *Scanner) Done() bool {
	for ; s.i < len(s.data); s.i++ {
		switch s.data[s.i] {
		case ' ', '\t', '\n', '\r':
		default:
			return false
		}
	}
	return true
}

// Byte reads c if it is next.
func (s *Scanner) Byte(c byte) bool {
	if s.i < len(s.data) && s.data[s.i] == c {
		s.i++
		return true
	}
	return false
}

// Object reads an object whose every member's value field reads; key is
// the member's name, read as Str reads it. An empty object is read too.
func (s *Scanner) Object(field func(key string) bool) bool {
	if !s.Byte('{') {
		return false
	}
	for first := true; ; first = false {
		if s.Byte('}') {
			return true
		}
		if !first && !s.Byte(',') {
			return false
		}
		key, ok := s.Str()
		if !ok || !s.Byte(':') || !field(key) {
			return false
		}
	}
}

// Str reads a string without escapes or control characters, in valid
// UTF-8.
func (s *Scanner) Str() (string, bool) {
	if !s.Byte('"') {
		return "", false
	}
	start := s.i
	for s.i < len(s.data) {
		c := s.data[s.i]
		switch {
		case c == '"':
			v := s.src[start:s.i]
			s.i++
			return v, utf8.ValidString(v)
		case c == '\\' || c < 0x20:
			return "", false
		}
		s.i++
	}
	return "", false
}

// Text reads a string as Str does and hands its bytes to the value's
// UnmarshalText, as encoding/json does for a value that has one.
func (s *Scanner) Text(v interface{ UnmarshalText([]byte) error }) bool {
	start := s.i
	if _, ok := s.Str(); !ok {
		return false
	}
	return v.UnmarshalText(s.data[start+1:s.i-1]) == nil
}

// Null reads a null.
func (s *Scanner) Null() bool { return s.lit("null") }

func (s *Scanner) lit(l string) bool {
	if len(s.data)-s.i >= len(l) && string(s.data[s.i:s.i+len(l)]) == l {
		s.i += len(l)
		return true
	}
	return false
}

// Bool reads true or false.
func (s *Scanner) Bool() (v, ok bool) {
	if s.lit("true") {
		return true, true
	}
	return false, s.lit("false")
}

// Int reads a non-negative integer without a leading zero (JSON has none).
func (s *Scanner) Int() (int, bool) {
	start := s.i
	for s.i < len(s.data) && s.data[s.i] >= '0' && s.data[s.i] <= '9' {
		s.i++
	}
	n, err := strconv.Atoi(s.src[start:s.i])
	return n, err == nil && (s.i-start == 1 || s.data[start] != '0')
}

// Time reads an RFC 3339 string, as time.Time's UnmarshalText reads it
// (what encoding/json uses), or null (nil time, ok).
func (s *Scanner) Time() (*time.Time, bool) {
	if s.Null() {
		return nil, true
	}
	var t time.Time
	if !s.Text(&t) {
		return nil, false
	}
	return &t, true
}

// Strs reads an array of strings as Str reads them, or null (nil).
func (s *Scanner) Strs() ([]string, bool) {
	if s.Null() {
		return nil, true
	}
	if !s.Byte('[') {
		return nil, false
	}
	out := []string{}
	if s.Byte(']') {
		return out, true
	}
	for {
		v, ok := s.Str()
		if !ok {
			return nil, false
		}
		out = append(out, v)
		if s.Byte(']') {
			return out, true
		}
		if !s.Byte(',') {
			return nil, false
		}
	}
}
