package hubapi

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// checkOperationRequest: whatever DecodeFast reads, encoding/json (as the
// hub's decodeBody runs it, unknown fields refused) reads the same.
func checkOperationRequest(t *testing.T, body []byte) {
	t.Helper()
	var fast OperationRequest
	if !fast.DecodeFast(body) {
		if !reflect.DeepEqual(fast, OperationRequest{}) {
			t.Fatalf("DecodeFast declined %q but left %#v", body, fast)
		}
		return
	}
	var std OperationRequest
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&std); err != nil || dec.More() {
		t.Fatalf("DecodeFast read %q, which encoding/json refuses (%v)", body, err)
	}
	if !reflect.DeepEqual(fast, std) {
		t.Fatalf("DecodeFast read %q as %#v; encoding/json: %#v", body, fast, std)
	}
}

// The body the client writes is read on the fast path; anything else is
// declined, for encoding/json to read or refuse.
func TestOperationRequestFastPath(t *testing.T) {
	body, err := json.Marshal(OperationRequest{Tool: "get_run", Target: "run:work/core/t-9/r-1", Shape: "read:meta", CorrelationID: "c-1"})
	if err != nil {
		t.Fatal(err)
	}
	var r OperationRequest
	if !r.DecodeFast(body) || r.Tool != "get_run" || r.CorrelationID != "c-1" {
		t.Fatalf("DecodeFast(%s) = %#v; want the client's request read", body, r)
	}
	checkOperationRequest(t, body)
	for _, in := range []string{`{"Tool":"x"}`, `{"tool":"a\"b"}`, `{"requester":"human:henry"}`, `{"tool":1}`, `{"tool": "x"}`, `{"extra":"x"}`, `{"tool":"x"}{}`} {
		var r OperationRequest
		if r.DecodeFast([]byte(in)) {
			t.Errorf("DecodeFast read %s, which is encoding/json's to read or refuse", in)
		}
		checkOperationRequest(t, []byte(in))
	}
}

// FuzzOperationRequestFastPath: no input panics, and the fast path reads
// only what encoding/json reads, to the same request.
func FuzzOperationRequestFastPath(f *testing.F) {
	f.Add([]byte(`{"tool":"get_run","target":"run:work/core/t-9/r-1","shape":"read:meta","correlation_id":"c-1"}`))
	f.Add([]byte(`{"persona":"work/core/lead","tool":"x","tool":"y"}`))
	f.Add([]byte("{}\n"))
	f.Fuzz(checkOperationRequest)
}
