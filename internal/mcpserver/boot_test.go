package mcpserver

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/tools"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
)

// Issue 14: "checks that every stamped tool has an executor and an input
// schema; otherwise it refuses to start and names what is missing".
func TestBootProofRefusesNamingWhatIsMissing(t *testing.T) {
	f := newFixture(t)
	p := f.persona(t, "work/core/lead", "Spica")
	v, err := f.op.Stamp(context.Background(), p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := prove(v, true); err != nil {
		t.Fatalf("the registered stamp: %v", err)
	}
	// A hub tool the hub cannot carry out yet refuses the start, named;
	// allowed, it is a warning.
	for _, tool := range v.Stamp.Tools {
		if row, _ := tools.Lookup(tool.Name); row.Runtime || usecase.HasExecutor(tool.Name) {
			continue
		}
		_, _, err := prove(v, false)
		if !errors.Is(err, stamp.ErrNotStanding) || !strings.Contains(err.Error(), tool.Name) || !strings.Contains(err.Error(), "the hub has no executor") {
			t.Fatalf("strict boot with %s unexecuted by the hub: %v; want a refusal naming it", tool.Name, err)
		}
		_, warnings, err := prove(v, true)
		if err != nil || !slices.ContainsFunc(warnings, func(p stamp.Problem) bool { return p.Tool == tool.Name }) {
			t.Fatalf("allowed boot: %v, warnings %v; want %s among the warnings", err, warnings, tool.Name)
		}
		break
	}

	saved := executors["workspace_hash"]
	delete(executors, "workspace_hash")
	_, _, err = prove(v, true)
	executors["workspace_hash"] = saved
	if !errors.Is(err, stamp.ErrNotStanding) || !strings.Contains(err.Error(), "workspace_hash") || !strings.Contains(err.Error(), "no executor") {
		t.Fatalf("without the hash executor: %v; want a refusal naming workspace_hash", err)
	}

	tampered := v
	tampered.Stamp.Tools = append(append([]stamp.Tool(nil), v.Stamp.Tools...), v.Stamp.Tools[0])
	if _, _, err := prove(tampered, true); !errors.Is(err, ErrStampBytes) {
		t.Fatalf("a stamp that is not the recorded one: %v, want ErrStampBytes", err)
	}
	tampered.Hash = mustHash(t, tampered.Stamp)
	if _, _, err := prove(tampered, true); !errors.Is(err, stamp.ErrNotStanding) || !strings.Contains(err.Error(), v.Stamp.Tools[0].Name) {
		t.Fatalf("a tool listed twice: %v; want the projections refused naming %s", err, v.Stamp.Tools[0].Name)
	}
}

func mustHash(t *testing.T, s stamp.Stamp) string {
	t.Helper()
	b, err := stamp.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	h, err := stamp.Hash(b)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
