package confirm

import (
	"bytes"
	"encoding/json"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
)

// confirmationFields is Confirmation without its methods, so that
// UnmarshalJSON can decode into it with encoding/json's own rules.
type confirmationFields Confirmation

// storedConfirmation is the stored form of a decided confirmation:
// "decision" (at depth 0, so it hides the embedded one) is left out;
// "decided" carries the decision without the fields it shares with the
// confirmation.
type storedConfirmation struct {
	*confirmationFields
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

// StoredJSON is c's record as stored: its JSON, with a decision's copies
// of c's fields left out (a copy kept elsewhere, as an idempotency record's
// result, keeps this form too). A pending confirmation is stored as
// json.Marshal writes it, byte for byte: answers splice those bytes in
// (queue.ResultJSON). The store's value codec compresses the record.
func StoredJSON(c *Confirmation) ([]byte, error) {
	if c.Decision == nil || !sharesFields(c.Decision, c) {
		return json.Marshal(c)
	}
	return json.Marshal(storedConfirmation{confirmationFields: (*confirmationFields)(c), Decided: &storedDecision{DecisionRecord: c.Decision}})
}

// UnmarshalJSON reads a confirmation's JSON: an answer's or change event's
// (the decision whole), or a stored record's, whose decision may leave out
// the fields it shares with the confirmation ("decided", filled in here).
func (c *Confirmation) UnmarshalJSON(data []byte) error { return strictjson.DecodeOpen(data, c) }

// UnmarshalJSONFrom reads a confirmation as UnmarshalJSON does, from the
// decoder of the value around it: encoding/json/v2 calls it in the same
// pass as the rest of an answer (hubapi.Decode), with the same options,
// where calling UnmarshalJSON would parse the confirmation's bytes twice.
func (c *Confirmation) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	var v struct {
		confirmationFields
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
	return nil
}

// WireJSON is a stored confirmation record as answers and change events
// carry it: the record itself, unless it is decided, when it is the
// confirmation's JSON as json.Marshal writes it (the decision whole).
func WireJSON(record []byte) ([]byte, error) {
	// Inside a JSON string a quote is escaped: this can only be a key.
	if !bytes.Contains(record, []byte(`"decided":`)) {
		return record, nil
	}
	var c Confirmation
	if err := strictjson.DecodeOpen(record, &c); err != nil {
		return nil, err
	}
	return json.Marshal(&c)
}
