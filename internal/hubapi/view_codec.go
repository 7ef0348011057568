package hubapi

import (
	"fmt"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// A persona view travels as {"persona":<record>[,"presence":<presence>]},
// the record as registry.EncodePersona writes it: the bytes the registry
// stores and `persona list -o json` prints, so that a list passes the
// stored bytes (registry.Record) through instead of decoding and encoding
// every persona. A view is read by Decode, as every answer is.

// viewOptions write a presence text in invalid UTF-8 (a persona's
// activity) with U+FFFD, as the record does, so that no persona can make
// the list fail for everyone.
var viewOptions = jsontext.AllowInvalidUTF8(true)

// viewJSON is a view on the wire, its persona already encoded.
type viewJSON struct {
	Persona  jsontext.Value `json:"persona"`
	Presence *Presence      `json:"presence,omitempty"`
}

// MarshalJSON writes the view with the persona record's own encoding, so
// every answer that carries a view (a persona, a snapshot, a retirement)
// shares its bytes.
func (v PersonaView) MarshalJSON() ([]byte, error) {
	rec, err := registry.EncodePersona(v.Persona)
	if err != nil {
		return nil, fmt.Errorf("encode persona %s: %w", v.Persona.Address, err)
	}
	return json.Marshal(viewJSON{Persona: rec, Presence: v.Presence}, viewOptions)
}

// MarshalRecordViews is the views of recs as a JSON array (never null),
// each record's bytes spliced in as they are (registry.Record: the stored
// bytes, checked by registry.NewRecord when read) and, when presence is
// not nil, the presence it gives for the record's generation. It splices
// rather than marshal a []viewJSON, which parses every record again to
// check it: for 10,000 personas through a hub's socket
// (BenchmarkPersonaListJSON10k/hub-running, one run, alternating) that
// took 128-148 cpu-ms and 55 MB a list against 68-110 cpu-ms and 38 MB;
// spliced, 67-93 cpu-ms and 38 MB.
func MarshalRecordViews(recs []registry.Record, presence func(id string) (Presence, bool)) ([]byte, error) {
	n := 2
	for _, r := range recs {
		n += len(`{"persona":},`) + len(r.JSON())
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, r := range recs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(b, `{"persona":`...), r.JSON()...)
		if presence != nil {
			if p, ok := presence(r.ID()); ok {
				pj, err := json.Marshal(p, viewOptions)
				if err != nil {
					return nil, fmt.Errorf("encode the presence of %s: %w", r.Address(), err)
				}
				b = append(append(b, `,"presence":`...), pj...)
			}
		}
		b = append(b, '}')
	}
	return append(b, ']'), nil
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
