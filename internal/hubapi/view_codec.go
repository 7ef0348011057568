package hubapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// A persona view travels as {"persona":<record>[,"presence":<presence>]},
// the record written by registry.Persona.AppendJSON (the bytes `persona
// list -o json` prints) and read by registry.DecodePersona: encoding/json's
// reflection, and its re-compacting of a Marshaler's output, cost more than
// the rest of a 10,000-persona list together. Presence stays encoding/json.
// Anything a fast reader does not recognise goes to encoding/json whole, so
// the fast path is an optimisation, never a second format.

// viewFields is PersonaView without its methods, for encoding/json.
type viewFields PersonaView

// ViewBytes is the size a view is expected to take, to grow buffers once;
// presenceBytes is its presence's share.
const (
	ViewBytes     = 800
	presenceBytes = 256
)

// AppendView appends v's JSON object to b.
func AppendView(b []byte, v PersonaView) ([]byte, error) {
	buf := bytes.NewBuffer(b)
	buf.WriteString(`{"persona":`)
	buf.Write(v.Persona.AppendJSON(buf.AvailableBuffer()))
	err := endView(buf, viewEncoder(buf), v.Persona.Address, v.Presence)
	return buf.Bytes(), err
}

// AppendRecordViews appends the views of recs as a JSON array (never null)
// to b, each record's bytes as they are (registry.Record: the stored bytes,
// already AppendJSON's) and, when presence is not nil, the presence it
// gives for the record's generation. A list is not decoded and encoded
// again on its way from the store to the socket.
func AppendRecordViews(b []byte, recs []registry.Record, presence func(id string) (Presence, bool)) ([]byte, error) {
	n := 2
	for _, r := range recs {
		n += len(`{"persona":},`) + len(r.JSON())
	}
	if presence != nil {
		n += len(recs) * presenceBytes
	}
	buf := bytes.NewBuffer(slices.Grow(b, n))
	buf.WriteByte('[')
	enc := viewEncoder(buf)
	for i, r := range recs {
		if i > 0 {
			buf.WriteByte(',')
		}
		var pr *Presence
		if presence != nil {
			if p, ok := presence(r.ID()); ok {
				pr = &p
			}
		}
		buf.WriteString(`{"persona":`)
		buf.Write(r.JSON())
		if err := endView(buf, enc, r.Address(), pr); err != nil {
			return nil, err
		}
	}
	buf.WriteByte(']')
	return buf.Bytes(), nil
}

// viewEncoder is the encoder a view's presence is written with: in place,
// and like the record without HTML escaping ('<', '>' and '&' stay).
func viewEncoder(buf *bytes.Buffer) *json.Encoder {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	return enc
}

// endView ends a view's object, whose persona buf holds: its presence, if
// any, by enc (which writes to buf); address names the persona in an error.
func endView(buf *bytes.Buffer, enc *json.Encoder, address string, pr *Presence) error {
	if pr != nil {
		buf.WriteString(`,"presence":`)
		if err := enc.Encode(pr); err != nil {
			return fmt.Errorf("encode the presence of %s: %w", address, err)
		}
		buf.Truncate(buf.Len() - 1) // Encode's newline
	}
	buf.WriteByte('}')
	return nil
}

// DecodeViews reads a JSON array of views: the fast path for what
// AppendRecordViews writes, encoding/json for anything else.
func DecodeViews(data []byte) ([]PersonaView, error) {
	if vs, ok := fastViewsSplit(data); ok {
		return vs, nil
	}
	var fs []viewFields
	if err := json.Unmarshal(data, &fs); err != nil {
		return nil, err
	}
	vs := make([]PersonaView, len(fs))
	for i, f := range fs {
		vs[i] = PersonaView(f)
	}
	return vs, nil
}

// DecodeRecords reads a JSON array of views as their persona records,
// each checked as registry.NewRecord checks a stored one (so each Record's
// JSON is what `persona list -o json` prints for it); a view's presence is
// not read. The fast path is for what AppendRecordViews writes;
// encoding/json reads anything else.
func DecodeRecords(data []byte) ([]registry.Record, error) {
	if rs, ok := fastRecords(data); ok {
		return rs, nil
	}
	return stdRecords(data)
}

// stdRecords is DecodeRecords through encoding/json.
func stdRecords(data []byte) ([]registry.Record, error) {
	var vs []struct {
		Persona json.RawMessage `json:"persona"`
	}
	if err := json.Unmarshal(data, &vs); err != nil {
		return nil, err
	}
	rs := make([]registry.Record, len(vs))
	for i, v := range vs {
		r, err := registry.NewRecord(v.Persona)
		if err != nil {
			return nil, fmt.Errorf("view %d: %w", i, err)
		}
		rs[i] = r
	}
	return rs, nil
}

// fastRecords reads the records of views as AppendRecordViews writes them;
// a presence is checked to be JSON and skipped.
func fastRecords(data []byte) ([]registry.Record, bool) {
	s := viewScanner{b: data}
	s.space()
	if !s.lit("[") {
		return nil, false
	}
	rs := make([]registry.Record, 0, len(data)/ViewBytes+1)
	if s.space(); s.lit("]") {
		return rs, s.end()
	}
	for {
		if !s.lit(`{"persona":`) {
			return nil, false
		}
		r, rest, ok := registry.CutRecord(s.b[s.i:])
		if ok {
			s.i = len(s.b) - len(rest)
		} else {
			obj, ok := s.flatObject()
			if !ok {
				return nil, false
			}
			var err error
			if r, err = registry.NewRecord(obj); err != nil {
				return nil, false
			}
		}
		rs = append(rs, r)
		if s.lit(`,"presence":`) {
			if obj, ok := s.flatObject(); !ok || !json.Valid(obj) {
				return nil, false
			}
		}
		if !s.lit("}") {
			return nil, false
		}
		if s.space(); !s.lit(",") {
			break
		}
		s.space()
	}
	return rs, s.lit("]") && s.end()
}

// viewSeam is the text between two views as AppendRecordViews writes them.
// Outside a string it can only be structure, and no JSON string holds it
// (a string's quotes are escaped), so cutting a valid array at one gives
// two valid arrays once their brackets are restored.
var viewSeam = []byte(`},{"persona":{`)

// splitAt is the answer size from which decoding runs on two cores: the
// client is otherwise idle while a large list decodes.
const splitAt = 1 << 20

// fastViewsSplit is fastViews, the two halves of a large array decoded
// side by side.
func fastViewsSplit(data []byte) ([]PersonaView, bool) {
	cut := -1
	if len(data) >= splitAt {
		if i := bytes.Index(data[len(data)/2:], viewSeam); i >= 0 {
			cut = len(data)/2 + i + 1 // after the first view's '}'
		}
	}
	if cut < 0 {
		return fastViews(data)
	}
	type half struct {
		vs []PersonaView
		ok bool
	}
	second := make(chan half, 1)
	go func() {
		s := viewScanner{b: data[cut+1:]}
		vs, ok := s.list(make([]PersonaView, 0, (len(data)-cut)/ViewBytes+1))
		second <- half{vs, ok && s.lit("]") && s.end()}
	}()
	s := viewScanner{b: data[:cut]}
	s.space()
	var vs []PersonaView
	ok := s.lit("[")
	if ok {
		vs, ok = s.list(make([]PersonaView, 0, len(data)/ViewBytes+1))
	}
	h := <-second
	if !ok || !s.end() || !h.ok {
		return nil, false
	}
	return append(vs, h.vs...), true
}

func fastViews(data []byte) ([]PersonaView, bool) {
	s := viewScanner{b: data}
	s.space()
	if !s.lit("[") {
		return nil, false
	}
	if s.space(); s.lit("]") {
		return []PersonaView{}, s.end()
	}
	vs, ok := s.list(make([]PersonaView, 0, len(data)/ViewBytes+1))
	return vs, ok && s.lit("]") && s.end()
}

// viewScanner walks JSON text written as AppendView writes it.
type viewScanner struct {
	b []byte
	i int
}

func (s *viewScanner) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\n' || s.b[s.i] == '\r' || s.b[s.i] == '\t') {
		s.i++
	}
}

// end reports whether only white space is left.
func (s *viewScanner) end() bool {
	s.space()
	return s.i == len(s.b)
}

func (s *viewScanner) lit(l string) bool {
	if len(s.b)-s.i >= len(l) && string(s.b[s.i:s.i+len(l)]) == l {
		s.i += len(l)
		return true
	}
	return false
}

// list reads views separated by commas onto vs, up to what follows the
// last one.
func (s *viewScanner) list(vs []PersonaView) ([]PersonaView, bool) {
	for {
		s.space()
		v, ok := s.view()
		if !ok {
			return nil, false
		}
		vs = append(vs, v)
		if s.space(); !s.lit(",") {
			return vs, true
		}
	}
}

func (s *viewScanner) view() (PersonaView, bool) {
	var v PersonaView
	if !s.lit(`{"persona":`) {
		return v, false
	}
	obj, ok := s.flatObject()
	if !ok {
		return v, false
	}
	p, err := registry.DecodePersona(obj)
	if err != nil {
		return v, false
	}
	v.Persona = p
	if s.lit(`,"presence":`) {
		if obj, ok = s.flatObject(); !ok {
			return v, false
		}
		var pr Presence
		if json.Unmarshal(obj, &pr) != nil {
			return v, false
		}
		v.Presence = &pr
	}
	return v, s.lit("}")
}

// flatObject returns the JSON object at the cursor, which holds no nested
// object or array (a persona record, a presence); the decoder given it
// checks the rest.
func (s *viewScanner) flatObject() ([]byte, bool) {
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return nil, false
	}
	inString := false
	for i := s.i + 1; i < len(s.b); i++ {
		c := s.b[i]
		switch {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '}':
			obj := s.b[s.i : i+1]
			s.i = i + 1
			return obj, true
		case c == '{' || c == '[':
			return nil, false
		}
	}
	return nil, false
}
