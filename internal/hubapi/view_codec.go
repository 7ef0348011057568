package hubapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// A persona view travels as {"persona":<record>[,"presence":<presence>]},
// the record written by registry.Persona.AppendJSON (the bytes `persona
// list -o json` prints): encoding/json's reflection, and its re-compacting
// of a Marshaler's output, cost more than the rest of a 10,000-persona list
// together. Presence stays encoding/json. A view is read by Decode, as
// every answer is.

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

// DecodeRecords reads a JSON array of views as their persona records,
// each checked as registry.NewRecord checks a stored one (so each Record's
// JSON is what `persona list -o json` prints for it); a view's presence is
// checked as JSON by Decode and not read.
func DecodeRecords(data []byte) ([]registry.Record, error) {
	var vs []struct {
		Persona  jsontext.Value `json:"persona"`
		Presence jsontext.Value `json:"presence"`
	}
	if err := Decode(data, &vs); err != nil {
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
