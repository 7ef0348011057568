package usecase

import (
	"errors"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/tools"

	"github.com/virgo-hub/virgo-tui/internal/coord"
)

// Every tool call of a persona instance is held to its generation's
// latest fence in the use case itself, not only at the hub's door: a
// record write and a read of an instance fenced out by a newer one (or
// presenting none once one was claimed) are refused with ErrFenced and
// store nothing, while the newer instance's same call is carried out.
func TestToolCallOfAFencedInstanceIsRefused(t *testing.T) {
	in := newInstallation(t)
	lead, caller := active(t, in, "work/core/lead", "Spica")
	older, err := in.cases.ClaimFence(t.Context(), lead)
	mustNil(t, err)
	newer, err := in.cases.ClaimFence(t.Context(), lead)
	mustNil(t, err)
	raise := `{"question":"ship it?","options":["yes","no"]}`
	for _, f := range []coord.Fence{older, coord.NoFence} {
		stale := caller
		stale.Fence = f
		for _, c := range []struct{ tool, args string }{{"raise_decision", raise}, {"list_decisions", `{}`}, {"list_tasks", `{}`}} {
			if call, err := callTool(t, in, stale, c.tool, c.args, ""); !errors.Is(err, coord.ErrFenced) {
				t.Errorf("%s with fence %d of %d: %+v %v, want ErrFenced", c.tool, f, newer, call, err)
			}
		}
	}
	current := caller
	current.Fence = newer
	call, err := callTool(t, in, current, "list_decisions", `{}`, "")
	mustNil(t, err)
	if string(call.Result) != `{"items":[]}` {
		t.Fatalf("the stale raises stored something: %s", call.Result)
	}
	if call, err := callTool(t, in, current, "raise_decision", raise, ""); err != nil || call.Status != tools.ToolDone {
		t.Fatalf("the newer instance's raise: %+v %v", call, err)
	}
}
