package hubapi

import "github.com/virgo-hub/virgo-tui/internal/jsonscan"

// A persona runtime sends an OperationRequest on every gated call, so the
// hub reads its body on a fast path: the compact object of plain strings
// the client's encoding/json writes, with only OperationRequest's own keys.
// Anything else (an identity claim, escapes, whitespace, another key) is
// declined, and the hub decodes the body with encoding/json as before, so
// the fast path is never a second format (FuzzOperationRequestFastPath).

// DecodeFast reads body into r on the fast path and reports whether it
// did; r is left zero when it did not. The caller still checks the body's
// framing and r's limits as it does after encoding/json.
func (r *OperationRequest) DecodeFast(body []byte) bool {
	d := jsonscan.New(body)
	var v OperationRequest
	read := d.Object(func(key string) (ok bool) {
		switch key {
		case "persona":
			v.Persona, ok = d.Str()
		case "tool":
			v.Tool, ok = d.Str()
		case "target":
			v.Target, ok = d.Str()
		case "shape":
			v.Shape, ok = d.Str()
		case "correlation_id":
			v.CorrelationID, ok = d.Str()
		}
		return ok
	})
	if !read || !d.Done() {
		return false
	}
	*r = v
	return true
}
