package confirm

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/jsonscan"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// pendingResult is the answer to a deputy's request that queued a
// confirmation for its owning lead, as the hub sends it.
func pendingResult() Result {
	at := time.Date(2026, 12, 1, 8, 40, 0, 123456789, time.UTC)
	return Result{Status: StatusUnknown, Decision: Decision{Verdict: Confirm, Boundary: BoundaryStampedScope, Reason: "run outside its assigned task"},
		Confirmation: &Confirmation{ID: "c-0123456789abcdef", Kind: KindOperation,
			Requester: PersonaPrincipal("work/core/deputy"), Authority: PersonaPrincipal("work/core/lead"),
			AuthorityBinding: "owning lead work/core/lead held by 0123", Route: RouteOwningLead,
			Operation: Operation{Persona: "work/core/deputy", Generation: 1, Tool: "get_run", HandlerAction: "run.get",
				Target: Target{Kind: TargetRun, Value: "work/core/t-9/r-1", Scope: "work", Project: "core", Task: "work/core/t-9"}, Shape: stamp.Shape("read:meta"),
				Arguments: []Argument{{Name: "run", Value: "r-1"}, {Name: "note", Value: "why"}}},
			PersonaID: "fedcba9876543210", Profile: "coder-deputy", StampHash: "sha256:ab", ClassKey: "ck", CorrelationID: "bench-1",
			Fingerprint: "fp", Boundary: BoundaryStampedScope, Reason: "outside its task", CreatedAt: at, ExpiresAt: at.Add(time.Hour), State: StatePending}}
}

// The answer encoding/json writes is read on the fast path, to what
// encoding/json reads; other shapes fall back with the same result.
func TestDecodeResultMatchesEncodingJSON(t *testing.T) {
	r := pendingResult()
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	// The hub ends its answer with a newline, as json.Encoder does.
	if _, ok := fastResult(append(data, '\n')); !ok {
		t.Fatalf("fast path declined the answer encoding/json writes: %s", data)
	}
	checkResult(t, data)
	got, err := DecodeResult(data)
	if err != nil || !reflect.DeepEqual(got, r) {
		t.Fatalf("DecodeResult(%s) = %+v, %v; want %+v", data, got, err, r)
	}

	decided := pendingResult()
	decided.Confirmation.State = StateApproved
	decided.Confirmation.Decision = &DecisionRecord{Decision: StateApproved, Decider: PersonaPrincipal("work/core/lead")}
	escaped := pendingResult()
	escaped.Confirmation.Detail = "line 1\nline \"2\""
	var variants [][]byte
	for _, v := range []Result{decided, escaped, {Status: StatusAllowed, Decision: Decision{Verdict: Allow, Remembered: true}}} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		variants = append(variants, b)
	}
	variants = append(variants, []byte(`{"status": "allowed"}`), []byte(`{"Status":"allowed"}`), []byte(`{"status":"denied","decision":{"verdict":"nope"}}`),
		[]byte(`{"status":"denied"}x`), []byte(`{"confirmation":{"operation":{"generation":-1}}}`), []byte(`{"confirmation":{"created_at":"yesterday"}}`),
		[]byte(`{"confirmation":null,"decision":{"verdict":"deny"},"decision":{"reason":"r"}}`),
		[]byte(`{"confirmation":{"operation":{"arguments":[]}}}`), []byte(`{"confirmation":{"operation":{"arguments":null}}}`),
		[]byte(`{"confirmation":{"operation":{"arguments":[{"name":"a","value":"b"},]}}}`),
		[]byte(`{"confirmation":{"operation":{"arguments":[{"name":"a","value":"[\"x\"]"},{"Name":"b"}]}}}`),
		[]byte(`{"confirmation":{"operation":{"arguments":[{"name":"a"}{"name":"b"}]}}}`))
	for _, b := range variants {
		checkResult(t, b)
	}
	if _, ok := fastResult(variants[0]); ok {
		t.Errorf("fast path read a decided confirmation, which it leaves to encoding/json")
	}
}

// checkResult: DecodeResult reads data as encoding/json does, and whatever
// the fast path accepts encoding/json accepts with the same result; a
// confirmation read alone (its UnmarshalJSON) agrees too.
func checkResult(t *testing.T, data []byte) {
	t.Helper()
	var std Result
	stdErr := json.Unmarshal(data, &std)
	got, err := DecodeResult(data)
	if (err == nil) != (stdErr == nil) || (err == nil && !reflect.DeepEqual(got, std)) {
		t.Fatalf("DecodeResult(%q) = %#v, %v; encoding/json: %#v, %v", data, got, err, std, stdErr)
	}
	if fast, ok := fastResult(data); ok && (stdErr != nil || !reflect.DeepEqual(fast, std)) {
		t.Fatalf("fast path accepted %q as %#v; encoding/json: %#v, %v", data, fast, std, stdErr)
	}
	checkStanding(t, data)
}

// checkStanding: DecodeStanding reads a confirmation's standing as
// encoding/json reads those four fields, fast path or not.
func checkStanding(t *testing.T, data []byte) {
	t.Helper()
	var std Standing
	stdErr := json.Unmarshal(data, &std)
	got, err := DecodeStanding(data)
	if (err == nil) != (stdErr == nil) || (err == nil && got != std) {
		t.Fatalf("DecodeStanding(%q) = %#v, %v; encoding/json: %#v, %v", data, got, err, std, stdErr)
	}
}

// A confirmation's standing is read on the fast path from a pending
// operation's record as the queue stores it, and from a decided one (which
// the fast path declines) by encoding/json, alike.
func TestDecodeStandingMatchesEncodingJSON(t *testing.T) {
	pending := pendingResult().Confirmation
	record, err := StoredJSON(pending)
	if err != nil {
		t.Fatal(err)
	}
	d := jsonscan.New(record)
	if !fastConfirmation(&d, new(Confirmation)) || !d.Done() {
		t.Fatalf("fast path declined a pending confirmation's record: %s", record)
	}
	want := Standing{ID: pending.ID, PersonaID: pending.PersonaID, Authority: pending.Authority, State: StatePending}
	if got, err := DecodeStanding(record); err != nil || got != want {
		t.Fatalf("DecodeStanding(pending) = %+v, %v; want %+v", got, err, want)
	}
	decided := *pending
	decided.State = StateApproved
	decided.Decision = &DecisionRecord{Decision: StateApproved, Decider: PersonaPrincipal("work/core/lead")}
	wire, err := json.Marshal(&decided)
	if err != nil {
		t.Fatal(err)
	}
	want.State = StateApproved
	if got, err := DecodeStanding(wire); err != nil || got != want {
		t.Fatalf("DecodeStanding(decided) = %+v, %v; want %+v", got, err, want)
	}
	for _, b := range [][]byte{record, wire, []byte(`{"id":"c-1","state":"pending"}`), []byte(`{"authority":"nobody"}`),
		[]byte(`{"id":"c-1","id":"c-2"}`), []byte(`{"id":"c-1"} `), []byte(`{"id":1}`), []byte(`[]`), []byte(`{`)} {
		checkStanding(t, b)
	}
}

// FuzzDecodeResult: no input panics, and DecodeResult (with the
// confirmation's own fast path inside encoding/json's) reads what
// encoding/json reads.
func FuzzDecodeResult(f *testing.F) {
	data, err := json.Marshal(pendingResult())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"status":"allowed","decision":{"verdict":"allow","boundary":"none","remembered":true}}`))
	f.Add([]byte(`{"confirmation":{"operation":{"target":{"kind":"run"}},"decision":null,"unroutable":true}}`))
	record, err := StoredJSON(pendingResult().Confirmation) // a record: DecodeStanding's input
	if err != nil {
		f.Fatal(err)
	}
	f.Add(record)
	f.Fuzz(checkResult)
}

// BenchmarkDecodeStanding: a pending operation's record, as the hub's
// watcher reads it from each confirmation event, by DecodeStanding and (the
// baseline, what the watcher did before) by encoding/json into Standing.
func BenchmarkDecodeStanding(b *testing.B) {
	record, err := StoredJSON(pendingResult().Confirmation)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		decode func([]byte) (Standing, error)
	}{
		{"DecodeStanding", DecodeStanding},
		{"encoding-json", func(data []byte) (s Standing, err error) { return s, json.Unmarshal(data, &s) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(record)))
			for b.Loop() {
				if s, err := c.decode(record); err != nil || s.State != StatePending {
					b.Fatal(s, err)
				}
			}
		})
	}
}
