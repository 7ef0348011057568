package confirm

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/virgo-hub/virgo-tui/internal/flatedict"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// A confirmation's Detail is stored compressed. An activation's detail is
// the class-matrix diff of the new stamp against the seat's previous one;
// for a first generation it lists every tool of the class, about 2 kB of a
// 3.2 kB record, the largest record of an active persona. The text is
// stored whole — what the decider saw is what is kept, byte for byte, with
// no dependence on the stamps or on the renderer of a later version — but
// as DEFLATE against a preset dictionary: the diffs of a first generation
// of every class as this version renders them (detail-dict-v1.txt), so an
// activation's detail is stored as the few bytes by which it differs (its
// address, human, namespace), about 130 bytes instead of 2,000. The
// dictionary is frozen: a stored detail names the dictionary it was
// compressed against (its first byte), and a class matrix that changes
// later only makes the compression less good, never a detail unreadable.
//
// The compressed form lives only in the store ("detail_z", base64 in the
// record's JSON, instead of "detail"). Every reader decodes a record with
// UnmarshalJSON below, which expands it; every answer and change event
// carries "detail" as text (WireJSON), as before.

// detailDictV1 is dictionary 1: never edit it (add a detail-dict-v2.txt
// and a new format byte instead).
//
//go:embed detail-dict-v1.txt
var detailDictV1 []byte

// detailFormatV1 is the first byte of a detail compressed against
// detailDictV1; the raw DEFLATE stream follows.
const detailFormatV1 = 1

// minPackedDetail: a shorter detail (a retirement's "asked by …: reason")
// is stored as text; compressing it would save little.
const minPackedDetail = 256

// MaxDetailBytes bounds what a stored detail expands to: a class-matrix diff
// is a few kB (every tool of the inventory added, each binding changed,
// well under this), so more is damage, never read further.
const MaxDetailBytes = 64 << 10

// ErrDetailDamaged: a confirmation's stored compressed detail does not
// expand (an unknown format, a broken stream, or more than MaxDetailBytes).
// It is a damaged record (store.ErrRecordDamaged): restore the file from a
// backup.
var ErrDetailDamaged = fmt.Errorf("%w: the confirmation's compressed detail does not expand", store.ErrRecordDamaged)

// detailCodec packs details against dictionary 1.
var detailCodec = flatedict.New(detailFormatV1, detailDictV1, MaxDetailBytes)

// packDetail is text compressed as stored, nil when text is kept as is.
func packDetail(text string) []byte {
	if len(text) < minPackedDetail {
		return nil
	}
	return detailCodec.Pack([]byte(text))
}

// unpackDetail expands a stored compressed detail.
func unpackDetail(z []byte) (string, error) {
	text, err := detailCodec.Unpack(z)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrDetailDamaged, err)
	}
	return string(text), nil
}

// confirmationFields is Confirmation without its methods, so that
// UnmarshalJSON can decode into it with encoding/json's own rules.
type confirmationFields Confirmation

// storedConfirmation is the stored form of a confirmation whose detail is
// compressed or which is decided: "detail" and "decision" (at depth 0, so
// they hide the embedded ones) are left out; "detail_z" carries the detail,
// "decided" the decision without the fields it shares with the confirmation.
type storedConfirmation struct {
	*confirmationFields
	Detail   string          `json:"detail,omitempty"`
	DetailZ  []byte          `json:"detail_z,omitempty"`
	Decision *DecisionRecord `json:"decision,omitempty"`
	Decided  *storedDecision `json:"decided,omitempty"`
}

// storedDecision is a decision record as stored inside its confirmation:
// the requester, authority, binding, operation, stamp hash and correlation
// id it records are the confirmation's own (planDecision copies them, and a
// decided confirmation is never written again), so they are stored once,
// in the confirmation, and a read copies them back (UnmarshalJSON). About
// 560 of a decided record's bytes.
type storedDecision struct {
	*DecisionRecord
	Requester        Principal `json:"requester,omitzero"`
	Authority        Principal `json:"authority,omitzero"`
	AuthorityBinding string    `json:"authority_binding,omitzero"`
	Operation        Operation `json:"operation,omitzero"`
	StampHash        string    `json:"stamp_hash,omitzero"`
	CorrelationID    string    `json:"correlation_id,omitzero"`
}

// sharesFields reports whether d records exactly c's own requester,
// authority, binding, operation, stamp hash and correlation id.
func sharesFields(d *DecisionRecord, c *Confirmation) bool {
	return d.Requester == c.Requester && d.Authority == c.Authority && d.AuthorityBinding == c.AuthorityBinding &&
		d.Operation.Equal(c.Operation) && d.StampHash == c.StampHash && d.CorrelationID == c.CorrelationID
}

// StoredJSON is c's record as stored: its JSON, with the detail compressed
// when that makes it smaller and a decision's copies of c's fields left out
// (a copy kept elsewhere, as an idempotency record's result, keeps this form
// too). A pending confirmation without a long detail (every queued
// operation's) is stored as json.Marshal writes it, byte for byte: answers
// splice those bytes in (ResultJSON).
func StoredJSON(c *Confirmation) ([]byte, error) {
	z := packDetail(c.Detail)
	compact := c.Decision != nil && sharesFields(c.Decision, c)
	if z == nil && !compact {
		return json.Marshal(c)
	}
	out := storedConfirmation{confirmationFields: (*confirmationFields)(c), Decision: c.Decision, DetailZ: z}
	if z == nil {
		out.Detail = c.Detail
	}
	if compact {
		out.Decision, out.Decided = nil, &storedDecision{DecisionRecord: c.Decision}
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads a confirmation's JSON: an answer's or change event's
// (the detail as text, the decision whole), or a stored record's, whose
// detail may be compressed ("detail_z", expanded here; ErrDetailDamaged
// when it does not expand) and whose decision may leave out the fields it
// shares with the confirmation ("decided", filled in here). A record
// stored before either has the text and the whole decision.
func (c *Confirmation) UnmarshalJSON(data []byte) error { return jsonv2.Unmarshal(data, c) }

// UnmarshalJSONFrom reads a confirmation as UnmarshalJSON does, from the
// decoder of the value around it: encoding/json/v2 calls it in the same
// pass as the rest of an answer (hubapi.Decode), with the same options,
// where calling UnmarshalJSON would parse the confirmation's bytes twice.
func (c *Confirmation) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	var v struct {
		confirmationFields
		DetailZ []byte          `json:"detail_z"`
		Decided *DecisionRecord `json:"decided"`
	}
	if err := jsonv2.UnmarshalDecode(dec, &v); err != nil {
		return err
	}
	*c = Confirmation(v.confirmationFields)
	if d := v.Decided; d != nil {
		d.Requester, d.Authority, d.AuthorityBinding = c.Requester, c.Authority, c.AuthorityBinding
		d.Operation, d.StampHash, d.CorrelationID = c.Operation, c.StampHash, c.CorrelationID
		c.Decision = d
	}
	if v.DetailZ != nil {
		text, err := unpackDetail(v.DetailZ)
		if err != nil {
			return fmt.Errorf("confirmation %s: %w", c.ID, err)
		}
		c.Detail = text
	}
	return nil
}

// WireJSON is a stored confirmation record as answers and change events
// carry it: the record itself, unless its detail is compressed or it is
// decided, when it is the confirmation's JSON as json.Marshal writes it
// (the detail as text, the decision whole).
func WireJSON(record []byte) ([]byte, error) {
	// Inside a JSON string a quote is escaped: these can only be keys.
	if !bytes.Contains(record, []byte(`"detail_z":`)) && !bytes.Contains(record, []byte(`"decided":`)) {
		return record, nil
	}
	var c Confirmation
	if err := json.Unmarshal(record, &c); err != nil {
		return nil, err
	}
	return json.Marshal(&c)
}
