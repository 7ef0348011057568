package hub

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/klauspost/compress/dict"
	"github.com/klauspost/compress/s2"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
	"github.com/virgo-hub/virgo-tui/internal/usecase/usecasetest"
)

// writeStoreDictEnv names the file TestWriteStoreDictionary writes.
const writeStoreDictEnv = "VIRGO_WRITE_STORE_DICT"

// TestWriteStoreDictionary builds the dictionary the store compresses values
// against (internal/store/codec.go) from an installation's own records
// (storeDictionary). It is a tool, run once per codec version, never over a
// dictionary that has shipped:
//
//	VIRGO_WRITE_STORE_DICT=$PWD/internal/store/boltstore/dict/s2-vN.dict go test ./internal/hub -run TestWriteStoreDictionary
func TestWriteStoreDictionary(t *testing.T) {
	out := usecasetest.DictionaryOut(t, writeStoreDictEnv)
	d := storeDictionary(t)
	mustNil(t, os.WriteFile(out, d, 0o644))
	t.Logf("%s: %d bytes", out, len(d))
}

// storeDictionary is a serialized S2 dictionary made from the records of
// personas registered and activated as `persona add` does and of a working
// hub's confirmations, decisions, audit entries and presence: the
// substrings they share (dict.BuildS2Dict), then, whole, the first stamp
// and the first activation confirmation of each profile. A stamp (4.6 kB)
// or an activation's class-matrix diff (2 kB) repeats its profile's almost
// entirely, but too long a stretch for the built part to keep: against the
// whole one, each is stored as the bytes by which it differs.
func storeDictionary(tb testing.TB) []byte {
	ctx := context.Background()
	var samples [][]byte
	add := func(st store.Store) {
		kvs, err := st.List(ctx, "")
		mustNil(tb, err)
		for _, kv := range kvs {
			samples = append(samples, kv.Value)
		}
	}

	stamped := shortHome(tb)
	usecasetest.StampedHome(tb, stamped, 300)
	st, err := boltstore.Open(stamped.DBPath(), boltstore.Options{})
	mustNil(tb, err)
	add(st)
	whole := exemplars(tb, st)
	mustNil(tb, st.Close())

	th := startHub(tb, shortHome(tb), Config{}, Timeouts{})
	for i, tool := range []string{"get_run", "list_runs", "write_file", "send_message", "read_file"} {
		lead := th.runtime(tb, th.addPersona(tb, fmt.Sprintf("work/core%d/lead", i), fmt.Sprintf("Spica%d", i)))
		_, err := lead.Beat(ctx)
		mustNil(tb, err)
		p := th.addPersona(tb, fmt.Sprintf("work/core%d/deputy", i), fmt.Sprintf("Zaniah%d", i))
		rt := th.runtime(tb, p)
		_, err = rt.Beat(ctx)
		mustNil(tb, err)
		for n := range 40 {
			r, err := rt.RequestConfirmation(ctx, hubapi.OperationRequest{Tool: tool,
				Target: fmt.Sprintf("run:work/core%d/t-%d/r-%d", i, n%7, n), Shape: "read:meta",
				CorrelationID: fmt.Sprintf("corr-%d-%d", i, n)})
			if err != nil || r.Confirmation == nil {
				continue // a tool this role may not ask for: its refusal is not a record
			}
			if n%3 != 2 {
				_, err = lead.Decide(ctx, r.Confirmation.ID, hubapi.DecideRequest{Approve: n%3 == 0, Reason: "as the plan says"})
				mustNil(tb, err)
			}
		}
	}
	add(th.hub.st)

	built, err := dict.BuildS2Dict(samples, dict.Options{MaxDictSize: s2.MaxDictSize - len(whole), HashBytes: 6})
	mustNil(tb, err)
	repeat, n := binary.Uvarint(built)
	if n <= 0 {
		tb.Fatal("the built dictionary has no repeat offset")
	}
	d := s2.MakeDictManual(append(built[n:len(built):len(built)], whole...), uint16(repeat))
	if d == nil {
		tb.Fatalf("a dictionary of %d + %d bytes does not make one", len(built)-n, len(whole))
	}
	return d.Bytes()
}

// exemplars are, one after the other, the first stored stamp and the first
// stored activation confirmation of each profile in st.
func exemplars(tb testing.TB, st store.Store) []byte {
	ctx := context.Background()
	var out []byte
	seen := map[string]bool{}
	stamps, err := st.List(ctx, usecase.StampPrefix)
	mustNil(tb, err)
	for _, kv := range stamps {
		s, err := stamp.Decode(kv.Key, kv.Value)
		mustNil(tb, err)
		if !seen["stamp "+s.Path.Profile] {
			seen["stamp "+s.Path.Profile] = true
			out = append(out, kv.Value...)
		}
	}
	confs, err := st.List(ctx, "confirm/req/")
	mustNil(tb, err)
	for _, kv := range confs {
		var c confirm.Confirmation
		mustNil(tb, json.Unmarshal(kv.Value, &c))
		if c.Kind == confirm.KindActivation && !seen["activation "+c.Profile] {
			seen["activation "+c.Profile] = true
			out = append(out, kv.Value...)
		}
	}
	return out
}
