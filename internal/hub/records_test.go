package hub

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/tools"

	"github.com/virgo-hub/virgo-tui/internal/events"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/decisions"
	"github.com/virgo-hub/virgo-tui/internal/graph"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/runs"
	"github.com/virgo-hub/virgo-tui/internal/tasks"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
)

// call makes one tool call that must be carried out and decodes its
// result into a T.
func callDone[T any](t *testing.T, c *hubclient.Client, persona, tool, args, corr string) T {
	t.Helper()
	out, err := c.CallTool(context.Background(), persona, tool, json.RawMessage(args), corr)
	if err != nil {
		t.Fatalf("%s %s: %v", tool, args, err)
	}
	if out.Status != tools.ToolDone {
		t.Fatalf("%s %s: %s (%s)", tool, args, out.Status, out.Decision)
	}
	var v T
	if err := json.Unmarshal(out.Result, &v); err != nil {
		t.Fatalf("%s: %v in %s", tool, err, out.Result)
	}
	return v
}

// The runs tools over the socket, each call decided under the caller's
// stamp: a deputy works a run of its assigned task through the state
// machine; a run of a task it was not assigned routes to its lead
// (deputy scope); the lead reads what the deputy recorded; a retry under
// the same correlation id creates nothing twice; an illegal move is
// refused by name.
func TestRunsThroughToolCalls(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	lead := th.addPersona(t, "work/core/lead", "Spica")
	deputy := th.addPersona(t, "work/core/deputy", "Zaniah")
	leadRT, depRT := th.runtime(t, lead), th.runtime(t, deputy)
	ctx := context.Background()

	coord := th.addPersona(t, "work/coordinator", "Vindemiatrix")
	mine := callDone[tasks.Task](t, leadRT, "", "assign_task", `{"assignee":"work/core/deputy","title":"port the parser","brief":"b"}`, "a-1")
	// A task of the deputy's project that is the lead's, not the deputy's.
	leads := callDone[tasks.Task](t, th.runtime(t, coord), "", "assign_task", `{"assignee":"work/core/lead","title":"release","brief":"b"}`, "a-2")
	routed, err := depRT.CallTool(ctx, "", "create_run", json.RawMessage(`{"task":"`+leads.ID+`"}`), "")
	mustNil(t, err)
	if routed.Status != tools.ToolConfirm || routed.Decision.Boundary != confirm.BoundaryDeputyScope {
		t.Fatalf("a run of a task not assigned to the deputy: %+v", routed)
	}

	run := callDone[runs.Run](t, depRT, "", "create_run", `{"task":"`+mine.ID+`","title":"first pass"}`, "run-1")
	if run.Task != mine.ID || run.Scope != "work" || run.Project != "core" || run.State != runs.StatePending {
		t.Fatalf("create_run: %+v", run)
	}
	again := callDone[runs.Run](t, depRT, "", "create_run", `{"task":"`+mine.ID+`","title":"first pass"}`, "run-1")
	if again.ID != run.ID || again.Seq != 1 {
		t.Fatalf("a retry under the same correlation id made another run: %+v", again)
	}
	callDone[runs.Run](t, depRT, "", "advance_run", `{"run":"`+run.ID+`","state":"running","note":"go"}`, "")
	callDone[runs.Event](t, depRT, "", "append_run_event", `{"run":"`+run.ID+`","kind":"output","text":"3 of 4 files"}`, "")
	th.writeWorkspace(t, "work/core/deputy", "out/parser.bin", "parser")
	art := callDone[runs.Artifact](t, depRT, "", "record_artifact", `{"run":"`+run.ID+`","name":"parser","path":"out/parser.bin"}`, "")
	if art.Run != run.ID || art.Path != "out/parser.bin" || art.Size != 6 {
		t.Fatalf("record_artifact: %+v", art)
	}
	_, err = depRT.CallTool(ctx, "", "advance_run", json.RawMessage(`{"run":"`+run.ID+`","state":"pending"}`), "")
	wantCode(t, err, "illegal_run_move")
	callDone[runs.Run](t, depRT, "", "advance_run", `{"run":"`+run.ID+`","state":"succeeded"}`, "")

	view := callDone[usecase.RunView](t, leadRT, "", "get_run", `{"run":"`+run.ID+`"}`, "")
	if view.State != runs.StateSucceeded || len(view.Log.Items) != 3 || len(view.ArtifactSet) != 1 || view.Log.Items[1].Text != "3 of 4 files" {
		t.Fatalf("get_run as the lead: %+v", view)
	}
	page := callDone[paging.Page[runs.Run]](t, leadRT, "", "list_runs", `{"task":"`+mine.ID+`"}`, "")
	if len(page.Items) != 1 || page.Items[0].ID != run.ID {
		t.Fatalf("list_runs: %+v", page)
	}
	_, err = depRT.CallTool(ctx, "", "get_run", json.RawMessage(`{"run":"r-nothing"}`), "")
	wantCode(t, err, "no_run")
}

// Decisions over the socket: the lead raises and resolves its own; the
// secretary's resolution is a relay of henry's explicit decision — it waits
// on a confirmation routed to henry, and, retried after henry approves,
// records henry as the decider; a deputy cannot resolve at all.
func TestDecisionsThroughToolCalls(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	lead := th.addPersona(t, "work/core/lead", "Spica")
	deputy := th.addPersona(t, "work/core/deputy", "Zaniah")
	sec := th.addPersona(t, "root/secretary", "Porrima")
	leadRT, depRT, secRT := th.runtime(t, lead), th.runtime(t, deputy), th.runtime(t, sec)
	henry := th.operator(t, "henry")
	ctx := context.Background()

	raise := `{"question":"Which parser?","options":["hand-written","generated"],"context":"two drafts"}`
	own := callDone[decisions.Decision](t, leadRT, "", "raise_decision", raise, "q-1")
	if own.Scope != "work" || own.Project != "core" || own.State != decisions.StateOpen {
		t.Fatalf("raise_decision: %+v", own)
	}
	done := callDone[decisions.Decision](t, leadRT, "", "resolve_decision", `{"decision":"`+own.ID+`","choice":"generated","reason":"smaller"}`, "")
	if r := done.Resolution; r == nil || r.DecidedBy != confirm.PersonaPrincipal("work/core/lead") || r.ResolvedBy != r.DecidedBy {
		t.Fatalf("the lead's own resolution: %+v", done.Resolution)
	}
	_, err := leadRT.CallTool(ctx, "", "resolve_decision", json.RawMessage(`{"decision":"`+own.ID+`","choice":"hand-written"}`), "")
	wantCode(t, err, "decision_resolved")

	asked := callDone[decisions.Decision](t, depRT, "", "raise_decision", raise, "q-2")
	denied, err := depRT.CallTool(ctx, "", "resolve_decision", json.RawMessage(`{"decision":"`+asked.ID+`","choice":"generated"}`), "")
	mustNil(t, err)
	if denied.Status != tools.ToolDenied {
		t.Fatalf("a deputy resolving: %+v", denied)
	}

	relay := json.RawMessage(`{"decision":"` + asked.ID + `","choice":"hand-written","reason":"henry said so"}`)
	wait, err := secRT.CallTool(ctx, "", "resolve_decision", relay, "relay-1")
	mustNil(t, err)
	if wait.Status != tools.ToolConfirm || wait.Decision.Boundary != confirm.BoundaryRelayedResolution {
		t.Fatalf("the secretary's relay: %+v", wait)
	}
	_, err = henry.Decide(ctx, wait.ConfirmationID, hubapi.DecideRequest{Approve: true})
	mustNil(t, err)
	relayed := callDone[decisions.Decision](t, secRT, "", "resolve_decision", string(relay), "relay-1")
	r := relayed.Resolution
	if r == nil || r.Option != "hand-written" || r.ResolvedBy != confirm.PersonaPrincipal("root/secretary") ||
		r.DecidedBy.String() != "human:henry" || r.ConfirmationID != wait.ConfirmationID {
		t.Fatalf("the relayed resolution: %+v", r)
	}

	open := callDone[paging.Page[decisions.Decision]](t, leadRT, "", "list_decisions", `{"state":"resolved"}`, "")
	if len(open.Items) != 2 {
		t.Fatalf("list_decisions as the lead: %+v", open)
	}
	mineOnly := callDone[paging.Page[decisions.Decision]](t, depRT, "", "list_decisions", `{}`, "")
	if len(mineOnly.Items) != 1 || mineOnly.Items[0].ID != asked.ID {
		t.Fatalf("list_decisions as the deputy (its own): %+v", mineOnly)
	}
	ctxPage := callDone[graph.Page](t, depRT, "", "query_graph_context", `{"query":"parser"}`, "")
	if len(ctxPage.Items) != 1 || ctxPage.Items[0].ID != asked.ID {
		t.Fatalf("query_graph_context as the deputy: %+v", ctxPage)
	}
}

// Runs and decisions reach an operator's change stream as typed changes
// whose data is the record, and their counts and indexes never do.
func TestRunsAndDecisionsAreOnTheStream(t *testing.T) {
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	lead := th.addPersona(t, "work/core/lead", "Spica")
	th.addPersona(t, "work/core/deputy", "Zaniah")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	op := th.operator(t, "henry")
	snap, err := op.Snapshot(ctx)
	mustNil(t, err)
	sub := op.Subscribe(ctx, snap.Seq)
	leadRT := th.runtime(t, lead)
	task := callDone[tasks.Task](t, leadRT, "", "assign_task", `{"assignee":"work/core/deputy","title":"parser","brief":"b"}`, "")
	run := callDone[runs.Run](t, leadRT, "", "create_run", `{"task":"`+task.ID+`"}`, "")
	callDone[runs.Run](t, leadRT, "", "advance_run", `{"run":"`+run.ID+`","state":"running"}`, "")
	th.writeWorkspace(t, "work/core/lead", "out/a", "a")
	callDone[runs.Artifact](t, leadRT, "", "record_artifact", `{"run":"`+run.ID+`","name":"a","path":"out/a"}`, "")
	d := callDone[decisions.Decision](t, leadRT, "", "raise_decision", `{"question":"q","options":["a","b"]}`, "")
	seen := map[events.EventKind]int{}
	collect(t, sub, 5*time.Second, func(cs []hubapi.Change) bool {
		for _, c := range cs {
			seen[c.Kind]++
			switch c.Kind {
			case hubapi.KindRun:
				var r runs.Run
				if err := json.Unmarshal(c.Data, &r); err != nil || r.ID != run.ID {
					t.Errorf("a run change's data: %s (%v)", c.Data, err)
				}
			case hubapi.KindDecision:
				var got decisions.Decision
				if err := json.Unmarshal(c.Data, &got); err != nil || got.ID != d.ID {
					t.Errorf("a decision change's data: %s (%v)", c.Data, err)
				}
			case "runs", "decisions":
				t.Errorf("an internal index on the stream: %s %s", c.Kind, c.ID)
			}
		}
		return seen[hubapi.KindRun] >= 3 && seen[hubapi.KindRunEvent] >= 1 && seen[hubapi.KindArtifact] >= 1 && seen[hubapi.KindDecision] >= 1
	})
}
