package jsonscan

import "testing"

// A Scanner reads only plain values and says so on anything else: its
// callers then hand the whole input to encoding/json.
func TestScannerReadsOnlyPlainValues(t *testing.T) {
	read := func(in string) bool {
		s := New([]byte(in))
		return s.Object(func(key string) bool {
			switch key {
			case "s":
				_, ok := s.Str()
				return ok
			case "n":
				_, ok := s.Int()
				return ok
			case "b":
				_, ok := s.Bool()
				return ok
			case "t":
				_, ok := s.Time()
				return ok
			case "a":
				_, ok := s.Strs()
				return ok
			}
			return false
		}) && s.Done()
	}
	for _, in := range []string{`{}`, `{"s":"x","n":12,"b":false,"t":null,"a":["p","q"]}`, "{\"t\":\"2026-12-01T08:00:00Z\"}\n", `{"a":null,"a":[]}`} {
		if !read(in) {
			t.Errorf("declined %q", in)
		}
	}
	for _, in := range []string{`{"s":"a\"b"}`, `{"s":"\u00e9"}`, `{"s":"` + "\xff" + `"}`, `{"n":012}`, `{"n":-1}`, `{"n":1.5}`,
		`{"b":True}`, `{"t":"yesterday"}`, `{"s": "x"}`, `{"x":"y"}`, `{"s":"x"} y`, `{"a":["p",]}`, `{"s":"x",}`, `{"s":"x"`} {
		if read(in) {
			t.Errorf("read %q, which is encoding/json's to read", in)
		}
	}
}
