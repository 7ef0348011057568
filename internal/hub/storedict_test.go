package hub

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/klauspost/compress/dict"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/usecase/usecasetest"
)

// writeStoreDictEnv names the file TestWriteStoreDictionary writes.
const writeStoreDictEnv = "VIRGO_WRITE_STORE_DICT"

// TestWriteStoreDictionary builds the dictionary the store compresses values
// against (internal/store/codec.go) from an installation's own records:
// personas registered and activated as `persona add` does, and a working
// hub's confirmations, decisions, audit entries and presence. It is a tool,
// run once per codec version, never over a dictionary that has shipped:
//
//	VIRGO_WRITE_STORE_DICT=$PWD/internal/store/dict/s2-vN.dict go test ./internal/hub -run TestWriteStoreDictionary
func TestWriteStoreDictionary(t *testing.T) {
	out := usecasetest.DictionaryOut(t, writeStoreDictEnv)
	ctx := context.Background()
	var samples [][]byte
	add := func(st store.Store) {
		kvs, err := st.List(ctx, "")
		mustNil(t, err)
		for _, kv := range kvs {
			samples = append(samples, kv.Value)
		}
	}

	stamped := shortHome(t)
	usecasetest.StampedHome(t, stamped, 300)
	st, err := store.OpenBolt(stamped.DBPath(), store.Options{})
	mustNil(t, err)
	add(st)
	mustNil(t, st.Close())

	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	for i, tool := range []string{"get_run", "list_runs", "write_file", "send_message", "read_file"} {
		lead := th.runtime(t, th.addPersona(t, fmt.Sprintf("work/core%d/lead", i), fmt.Sprintf("Spica%d", i)))
		_, err := lead.Beat(ctx)
		mustNil(t, err)
		p := th.addPersona(t, fmt.Sprintf("work/core%d/deputy", i), fmt.Sprintf("Zaniah%d", i))
		rt := th.runtime(t, p)
		_, err = rt.Beat(ctx)
		mustNil(t, err)
		for n := range 40 {
			r, err := rt.RequestConfirmation(ctx, hubapi.OperationRequest{Tool: tool,
				Target: fmt.Sprintf("run:work/core%d/t-%d/r-%d", i, n%7, n), Shape: "read:meta",
				CorrelationID: fmt.Sprintf("corr-%d-%d", i, n)})
			if err != nil || r.Confirmation == nil {
				continue // a tool this role may not ask for: its refusal is not a record
			}
			if n%3 != 2 {
				_, err = lead.Decide(ctx, r.Confirmation.ID, hubapi.DecideRequest{Approve: n%3 == 0, Reason: "as the plan says"})
				mustNil(t, err)
			}
		}
	}
	add(th.hub.st)

	d, err := dict.BuildS2Dict(samples, dict.Options{MaxDictSize: 64 << 10, HashBytes: 6})
	mustNil(t, err)
	mustNil(t, os.WriteFile(out, d, 0o644))
	t.Logf("%s: %d bytes from %d records", out, len(d), len(samples))
}
