package confirm

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// firstDiff is the class-matrix diff a first generation of address is
// activated with: every tool of its class (the registration use case's
// Detail).
func firstDiff(t testing.TB, address string) (*stamp.Stamp, string, string) {
	t.Helper()
	st, hash := buildStamp(t, address, 1)
	return st, hash, stamp.RenderDiff(stamp.Diff(stamp.Stamp{}, *st))
}

// "The decider must still see exactly the diff that is approved, and
// history must still show it": an activation's detail is stored
// compressed, and every read of the confirmation — Get, List, the decided
// answer, a change event's payload, a queued request's answer — has the
// text it was queued with, byte for byte.
func TestActivationDetailStoredCompressedReadWhole(t *testing.T) {
	ctx := context.Background()
	q, _ := queueFor(t, QueueOptions{})
	st, hash, diff := firstDiff(t, "work/core/lead")
	res, plan, err := q.PlanActivation(ctx, st, hash, diff)
	if err != nil {
		t.Fatal(err)
	}
	queued, err := ResultJSON(res, plan)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plan.Commit(ctx, q.st); err != nil {
		t.Fatal(err)
	}
	id := res.Confirmation.ID
	raw, err := q.st.Get(ctx, keyConfirmation(id))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw.Value, []byte(`"detail":`)) || !bytes.Contains(raw.Value, []byte(`"detail_z":`)) {
		t.Fatalf("the stored record keeps the detail as text: %s", raw.Value)
	}
	// The lead's detail is 2.1 kB; stored it is the bytes that differ
	// from the dictionary's lead.
	if len(raw.Value) > len(diff)/2 || len(raw.Value) > 1300 {
		t.Errorf("the stored activation is %d bytes (its detail alone is %d as text)", len(raw.Value), len(diff))
	}

	check := func(what, got string) {
		t.Helper()
		if got != diff {
			t.Errorf("%s shows another detail:\n%q\nwant\n%q", what, got, diff)
		}
	}
	c, err := q.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	check("Get", c.Detail)
	all, err := q.List(ctx, true)
	if err != nil || len(all) != 1 {
		t.Fatalf("List: %v, %v", all, err)
	}
	check("List", all[0].Detail)
	var answer struct {
		Confirmation map[string]any `json:"confirmation"`
	}
	if err := json.Unmarshal(queued, &answer); err != nil {
		t.Fatal(err)
	}
	text, _ := answer.Confirmation["detail"].(string)
	check("the queued request's answer (ResultJSON)", text)
	if _, ok := answer.Confirmation["detail_z"]; ok {
		t.Error("the queued request's answer carries the stored form detail_z")
	}

	decided, err := q.Approve(ctx, henry, id, RememberNone)
	if err != nil {
		t.Fatal(err)
	}
	check("the decided confirmation", decided.Detail)
	raw, err = q.st.Get(ctx, keyConfirmation(id))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw.Value, []byte(`"detail":`)) {
		t.Errorf("the decision stored the detail as text: %s", raw.Value)
	}
	wire, err := WireJSON(raw.Value)
	if err != nil {
		t.Fatal(err)
	}
	var event map[string]any
	if err := json.Unmarshal(wire, &event); err != nil {
		t.Fatal(err)
	}
	text, _ = event["detail"].(string)
	check("a change event's payload (WireJSON)", text)
	if _, ok := event["detail_z"]; ok {
		t.Error("a change event's payload carries the stored form detail_z")
	}
	plain, err := json.Marshal(decided)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(plain, []byte("detail_z")) {
		t.Errorf("an answer's JSON carries detail_z: %s", plain)
	}
}

// A record stored before details were compressed (the text under
// "detail") reads as it did; a short detail (a retirement's) and an
// operation's record are stored as json.Marshal writes them.
func TestDetailRecordsOfBeforeAndShortDetailsStayText(t *testing.T) {
	ctx := context.Background()
	q, _ := queueFor(t, QueueOptions{})
	st, hash, diff := firstDiff(t, "work/core/deputy")
	res, err := requestActivation(t, q, st, hash, diff)
	if err != nil {
		t.Fatal(err)
	}
	old := *res.Confirmation
	before, err := json.Marshal(&old) // the record as every earlier version stored it
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.st.Txn(ctx, nil, []store.Op{store.Put(keyConfirmation(old.ID), before)}); err != nil {
		t.Fatal(err)
	}
	c, err := q.Get(ctx, old.ID)
	if err != nil || c.Detail != diff {
		t.Fatalf("a record of before: %v, detail %q", err, c.Detail)
	}
	if wire, err := WireJSON(before); err != nil || !bytes.Equal(wire, before) {
		t.Errorf("a record of before is not its own wire form: %v", err)
	}

	rr, err := q.RequestRetirement(ctx, henry, st, hash, "project closed")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := q.st.Get(ctx, keyConfirmation(rr.Confirmation.ID))
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(rr.Confirmation)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(raw.Value, want) {
		t.Errorf("a retirement (a short detail) is stored as\n%s\nnot as json.Marshal writes it\n%s", raw.Value, want)
	}
}

// A compressed detail that does not expand — an unknown format byte, a
// broken stream, a bomb past MaxDetailBytes — is a damaged record, named,
// never a panic nor a detail cut short.
func TestDamagedDetailIsNamed(t *testing.T) {
	bomb := func() []byte {
		var b bytes.Buffer
		b.WriteByte(detailFormatV1)
		w, _ := flate.NewWriterDict(&b, flate.BestCompression, detailDictV1)
		w.Write(bytes.Repeat([]byte("a"), MaxDetailBytes+1))
		w.Close()
		return b.Bytes()
	}
	good := packDetail(strings.Repeat("  + workspace_list (allow, own-workspace)\n", 10))
	if good == nil {
		t.Fatal("a long detail was not compressed")
	}
	for name, z := range map[string][]byte{
		"format 2":        append([]byte{2}, good[1:]...),
		"empty":           {},
		"cut short":       good[:len(good)/2],
		"more than bound": bomb(),
	} {
		rec, err := json.Marshal(map[string]any{"id": "c-1", "detail_z": z})
		if err != nil {
			t.Fatal(err)
		}
		var c Confirmation
		err = json.Unmarshal(rec, &c)
		if !errors.Is(err, ErrDetailDamaged) || !errors.Is(err, store.ErrRecordDamaged) || c.Detail != "" {
			t.Errorf("%s: %v (detail %d bytes), want ErrDetailDamaged", name, err, len(c.Detail))
		}
		if _, err := WireJSON(rec); !errors.Is(err, ErrDetailDamaged) {
			t.Errorf("%s: WireJSON: %v, want ErrDetailDamaged", name, err)
		}
	}
}

// The dictionary is frozen, the class matrix is not: a first generation's
// diff of every class still compresses to a few hundred bytes. When this
// fails the matrix has moved far from detail-dict-v1.txt — details are
// still read whole, only stored larger: add a dictionary 2 (a new format
// byte), never edit 1.
func TestDetailDictionaryMatchesTheClasses(t *testing.T) {
	for _, addr := range []string{"root/secretary", "home/secretary", "work/coordinator", "work/core/lead", "work/core/deputy"} {
		_, _, diff := firstDiff(t, addr)
		z := packDetail(diff)
		t.Logf("%s: %d bytes of diff stored as %d", addr, len(diff), len(z))
		if z == nil || len(z) > 300 {
			t.Errorf("%s: a %d-byte diff compresses to %d bytes; want at most 300", addr, len(diff), len(z))
		}
		if got, err := unpackDetail(z); err != nil || got != diff {
			t.Errorf("%s: does not expand to itself: %v", addr, err)
		}
	}
}

// BenchmarkActivationRecord reads and writes a decided first-generation
// activation of a lead as stored: its detail compressed ("stored") and, for
// comparison, as text ("text", every record before). Reports the record's
// bytes.
func BenchmarkActivationRecord(b *testing.B) {
	st, hash, diff := firstDiff(b, "work/core/lead")
	q, _ := queueFor(b, QueueOptions{})
	res, _, err := q.PlanActivation(context.Background(), st, hash, diff)
	if err != nil {
		b.Fatal(err)
	}
	c := *res.Confirmation
	for _, form := range []string{"stored", "text"} {
		encode := func() ([]byte, error) { return StoredJSON(&c) }
		if form == "text" {
			encode = func() ([]byte, error) { return json.Marshal(&c) }
		}
		rec, err := encode()
		if err != nil {
			b.Fatal(err)
		}
		b.Run(form+"/read", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				var got Confirmation
				if err := json.Unmarshal(rec, &got); err != nil || got.Detail != diff {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(rec)), "record-B")
		})
		b.Run(form+"/write", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := encode(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// "The decision record stores the requester, authority binding, normalized
// operation, stamp hash, decision, and correlation id": a decided record
// stores them once, in the confirmation, and every read — Get, List, the
// retried request, a change event's payload — has the whole decision
// record, the same as the decision answered. A record of before (the
// decision whole) reads as it was.
func TestDecisionStoresTheSharedFieldsOnce(t *testing.T) {
	ctx := context.Background()
	q, _ := queueFor(t, QueueOptions{})
	p := policyFor(t, "work/core/lead", Options{})
	me := PersonaPrincipal(p.Address())
	o := deployOp(t, p)
	r := mustRequest(t, q, me, p, o, "corr-1")
	decided, err := q.Deny(ctx, henry, r.Confirmation.ID, "not today", RememberNone)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := json.Marshal(decided)
	if err != nil {
		t.Fatal(err)
	}
	d := decided.Decision
	if d == nil || d.Requester != me || !d.Operation.Equal(o) || d.CorrelationID != "corr-1" || d.StampHash != decided.StampHash || d.AuthorityBinding == "" {
		t.Fatalf("the decision answered: %+v", d)
	}
	raw, err := q.st.Get(ctx, keyConfirmation(decided.ID))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(raw.Value, []byte(`"correlation_id":`)); n != 1 || !bytes.Contains(raw.Value, []byte(`"decided":`)) {
		t.Errorf("the stored decision repeats the confirmation's fields (%d correlation ids):\n%s", n, raw.Value)
	}
	if len(raw.Value) > len(whole)-300 {
		t.Errorf("stored %d bytes, the whole confirmation is %d", len(raw.Value), len(whole))
	}
	same := func(what string, c *Confirmation) {
		t.Helper()
		got, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, whole) {
			t.Errorf("%s:\n%s\nthe decision answered\n%s", what, got, whole)
		}
	}
	c, err := q.Get(ctx, decided.ID)
	if err != nil {
		t.Fatal(err)
	}
	same("Get", c)
	all, err := q.List(ctx, true)
	if err != nil || len(all) != 1 {
		t.Fatalf("List: %v, %v", all, err)
	}
	same("List", all[0])
	again := mustRequest(t, q, me, p, o, "corr-1")
	same("the retried request", again.Confirmation)
	wire, err := WireJSON(raw.Value)
	if err != nil || !bytes.Equal(wire, whole) {
		t.Errorf("a change event's payload: %v\n%s\nwant\n%s", err, wire, whole)
	}

	// A record of before keeps its whole decision, and is its own wire form.
	if _, err := q.st.Txn(ctx, nil, []store.Op{store.Put(keyConfirmation(decided.ID), whole)}); err != nil {
		t.Fatal(err)
	}
	c, err = q.Get(ctx, decided.ID)
	if err != nil {
		t.Fatal(err)
	}
	same("a record of before", c)
	if wire, err := WireJSON(whole); err != nil || !bytes.Equal(wire, whole) {
		t.Errorf("a record of before is not its own wire form: %v", err)
	}
}
