package hub

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/decisions"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/tools"
)

// boundCase is one confirm path of a tool: who calls it, with which
// arguments, and for every argument a different value (or "" to leave it
// out) that a retry after the approval may not swap in.
type boundCase struct {
	name    string
	caller  string // the calling persona's address
	args    map[string]any
	changed map[string]any
}

// confirmCapable reports whether a tool of the table can wait on a
// confirmation: a class's stamp carries it with confirm access or a
// relayed scope (footnotes ¹ ²), or an argument chooses a shape at a
// confirm boundary (delete, publication).
func confirmCapable(row tools.Tool) bool {
	for _, p := range registry.Profiles {
		if t, ok := stamp.ExpectedTool(p, row.Name); ok &&
			(t.Access == stamp.AccessConfirm || t.Scope == stamp.ScopeRelayBoundHuman || t.Scope == stamp.ScopeLaneApprover) {
			return true
		}
	}
	for _, c := range row.ShapeOf {
		switch c.Shape {
		case stamp.ShapeDelete, stamp.ShapePublishExternal, stamp.ShapeDeploy:
			return true
		}
	}
	return false
}

// Over the socket, for every tool of the table with a
// confirm path: the human approves the operation as shown; a retry under
// the same correlation id that changes any bound argument is refused
// (correlation_reuse), whatever it changes; the unchanged retry is carried
// out once, and every later retry is answered with the recorded outcome —
// a relayed resolution records the choice the human saw, a publication is
// handed to the runtime once.
func TestApprovedOperationIsExactlyWhatWasShownAndCarriedOutOnce(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	ctx := context.Background()
	henry := th.operator(t, "henry")
	rts := map[string]*hubclient.Client{}
	for addr, name := range map[string]string{"root/secretary": "Porrima", "work/coordinator": "Vindemiatrix", "work/core/lead": "Spica"} {
		rts[addr] = th.runtime(t, th.addPersona(t, addr, name))
	}
	raise := func(corr string) string {
		call, err := rts["work/core/lead"].CallTool(ctx, "", "raise_decision",
			json.RawMessage(`{"question":"ship it?","options":["yes","no"]}`), corr)
		mustNil(t, err)
		var d decisions.Decision
		mustNil(t, json.Unmarshal(call.Result, &d))
		return d.ID
	}
	other := raise("other")
	cases := []boundCase{
		{name: "resolve_decision", caller: "root/secretary",
			args:    map[string]any{"decision": raise("d-sec"), "choice": "yes", "reason": "as asked"},
			changed: map[string]any{"decision": other, "choice": "no", "reason": "changed my mind"}},
		{name: "resolve_decision", caller: "work/coordinator",
			args:    map[string]any{"decision": raise("d-coord"), "choice": "yes"},
			changed: map[string]any{"decision": other, "choice": "no", "reason": "an added reason"}},
		{name: "publish_deployment_v1", caller: "work/core/lead",
			args:    map[string]any{"destination": "https://example.org/r", "action": "publish", "description": "v1.2"},
			changed: map[string]any{"destination": "https://example.org/evil", "action": "deploy", "description": "v6.6.6 with the keys"}},
		{name: "workspace_write", caller: "work/core/lead",
			args:    map[string]any{"path": "memory/old.md", "action": "delete"},
			changed: map[string]any{"path": "QUEUE.md", "action": "overwrite", "content": "x", "workspace": "repository"}},
	}
	var covered []string
	for _, row := range tools.All() {
		if confirmCapable(row) {
			covered = append(covered, row.Name)
		}
	}
	var tested []string
	for _, c := range cases {
		tested = append(tested, c.name)
	}
	slices.Sort(covered)
	if slices.Sort(tested); !slices.Equal(slices.Compact(tested), covered) {
		t.Fatalf("the tools with a confirm path are %v; this test covers %v", covered, tested)
	}

	for i, c := range cases {
		t.Run(c.name+" as "+c.caller, func(t *testing.T) {
			row, err := tools.Lookup(c.name)
			mustNil(t, err)
			rt := rts[c.caller]
			corr := "bound-" + strconv.Itoa(i)
			send := func(args map[string]any) (hubapi.ToolCall, error) {
				raw, err := json.Marshal(args)
				mustNil(t, err)
				return rt.CallTool(ctx, "", c.name, raw, corr)
			}
			wait, err := send(c.args)
			mustNil(t, err)
			if wait.Status != tools.ToolConfirm || wait.ConfirmationID == "" {
				t.Fatalf("first call: %+v", wait)
			}
			shown, err := henry.Confirmation(ctx, wait.ConfirmationID)
			mustNil(t, err)
			for name, v := range c.args {
				if !slices.Contains(shown.Operation.Arguments, confirm.Argument{Name: name, Value: v.(string)}) {
					t.Errorf("the confirmation does not show %s=%s: %+v", name, v, shown.Operation.Arguments)
				}
			}
			_, err = henry.Decide(ctx, wait.ConfirmationID, hubapi.DecideRequest{Approve: true})
			mustNil(t, err)

			// Every bound argument of the table is changed once (the
			// cases must name them all).
			for _, p := range row.Params {
				if p.Unbound {
					continue
				}
				v, ok := c.changed[p.Name]
				if !ok {
					t.Fatalf("the case names no changed value of %s's bound argument %q", c.name, p.Name)
				}
				args := maps.Clone(c.args)
				args[p.Name] = v
				_, err := send(args)
				wantCode(t, err, "correlation_reuse")
			}

			done, err := send(c.args)
			mustNil(t, err)
			switch row.Runtime {
			case true:
				if done.Status != tools.ToolAllowed {
					t.Fatalf("the approved call: %+v", done)
				}
			default:
				var d decisions.Decision
				mustNil(t, json.Unmarshal(done.Result, &d))
				if done.Status != tools.ToolDone || d.Resolution == nil || d.Resolution.Option != "yes" || d.Resolution.DecidedBy.String() != "human:henry" {
					t.Fatalf("the approved resolution: %+v %s", done, done.Result)
				}
			}
			for range 2 {
				again, err := send(c.args)
				mustNil(t, err)
				if again.Status == tools.ToolAllowed || again.CarriedAt == nil || again.ConfirmationID != wait.ConfirmationID {
					t.Fatalf("a retry after the call was carried out: %+v; want the recorded outcome", again)
				}
				if row.Runtime && again.Status != tools.ToolCarried {
					t.Fatalf("a runtime tool's retry: %+v; want status carried", again)
				}
				if !row.Runtime && (again.Status != tools.ToolDone || string(again.Result) != string(done.Result)) {
					t.Fatalf("a hub tool's retry: %+v %s; want the recorded result %s", again, again.Result, done.Result)
				}
			}
			// Executed once: one tool-call audit entry for it.
			audit, err := henry.Audit(ctx, 0)
			mustNil(t, err)
			n := 0
			for _, e := range audit {
				if e.Event == "tool-call" && e.ConfirmationID == wait.ConfirmationID {
					n++
				}
			}
			if !row.Runtime && n != 1 {
				t.Fatalf("%d tool-call audit entries for confirmation %s; want 1", n, wait.ConfirmationID)
			}
		})
	}
}
