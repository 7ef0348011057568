package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/tools"
)

// filled is a T (a struct of strings and booleans) with every string
// "x" and every boolean true: all its members present in its JSON.
func filled[T any]() T {
	var v T
	rv := reflect.ValueOf(&v).Elem()
	for i := range rv.NumField() {
		switch f := rv.Field(i); f.Kind() {
		case reflect.String:
			f.SetString("x")
		case reflect.Bool:
			f.SetBool(true)
		}
	}
	return v
}

// compileOutput compiles a listed tool's output schema.
func compileOutput(t *testing.T, name string, schema any) *jsonschema.Schema {
	t.Helper()
	b, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	var root struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(b, &root); err != nil || root.Type != "object" {
		t.Fatalf("%s: output schema %s; MCP wants type object at its root", name, b)
	}
	s, err := tools.CompileSchema("https://virgo-hub.github.io/schemas/tools/"+name+".output.json", b)
	if err != nil {
		t.Fatalf("%s: output schema does not compile: %v", name, err)
	}
	return s
}

// admits reports whether schema admits v's JSON.
func admits(s *jsonschema.Schema, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	return s.Validate(doc)
}

// "one structured error shape for every failure ... in
// structuredContent": every tool's output schema compiles, is an object
// at its root, and admits the one failure shape and a waiting call's
// answer (any call may need confirming), each with every member it can
// carry and with the fewest; a runtime tool's also admits the carried
// answer. The shapes name every member the Go types carry.
func TestEveryOutputSchemaAdmitsTheFailureShape(t *testing.T) {
	for what, c := range map[string]struct {
		shape tools.Result
		full  any
	}{"Failure": {failureAnswer, filled[Failure]()}, "Answer": {waitingAnswer, filled[Answer]()}} {
		b, _ := json.Marshal(c.full)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		for name := range m {
			if !slices.ContainsFunc(c.shape, func(x tools.Member) bool { return x.Name == name }) {
				t.Errorf("%s's member %q is not in its output shape", what, name)
			}
		}
	}
	full := filled[Failure]()
	carried := hubapi.ToolCall{Status: tools.ToolCarried, Tool: "x", CorrelationID: "x", Result: json.RawMessage(`[1]`)}
	now := time.Now()
	carried.CarriedAt = &now
	for _, row := range tools.All() {
		s := compileOutput(t, row.Name, outputSchema(row))
		answers := map[string]any{
			"a failure with every member": full,
			"a failure with the fewest":   Failure{Code: "internal", Message: "x"},
			"a waiting call":              Answer{Status: confirm.StatusUnknown, CorrelationID: "x"},
			"a waiting call in full":      Answer{Status: confirm.StatusUnknown, CorrelationID: "x", Confirmation: "x", Authority: "x", Boundary: "x", Reason: "x"},
		}
		if row.Runtime {
			answers["a carried call"] = carried
		}
		for what, v := range answers {
			if err := admits(s, v); err != nil {
				t.Errorf("%s: the output schema refuses %s: %v", row.Name, what, err)
			}
		}
	}
}

// undescribed lists the members of v (nested ones by path) that shape r
// does not name.
func undescribed(r tools.Result, v map[string]any, at string) []string {
	var out []string
	for name, x := range v {
		i := slices.IndexFunc(r, func(m tools.Member) bool { return m.Name == name })
		if i < 0 {
			out = append(out, at+name)
			continue
		}
		m := r[i]
		if m.Members == nil {
			continue
		}
		switch x := x.(type) {
		case map[string]any:
			out = append(out, undescribed(m.Members, x, at+name+".")...)
		case []any:
			for _, item := range x {
				if o, ok := item.(map[string]any); ok {
					out = append(out, undescribed(m.Members, o, at+name+"[].")...)
				}
			}
		}
	}
	return out
}

// answers records every answer of a run of calls, by tool.
type answers struct {
	t       *testing.T
	schemas map[string]*jsonschema.Schema
	// by is the first session that lists each tool.
	by  map[string]*mcp.ClientSession
	got map[string][]*mcp.CallToolResult
}

// list reads a session's tools/list and compiles each output schema.
func (a *answers) list(cs *mcp.ClientSession) {
	a.t.Helper()
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		a.t.Fatal(err)
	}
	for _, tool := range lt.Tools {
		if tool.OutputSchema == nil {
			a.t.Errorf("%s is listed without an output schema", tool.Name)
			continue
		}
		a.schemas[tool.Name] = compileOutput(a.t, tool.Name, tool.OutputSchema)
		if a.by[tool.Name] == nil {
			a.by[tool.Name] = cs
		}
	}
}

// call calls tool, records its answer and returns its structured content.
func (a *answers) call(cs *mcp.ClientSession, tool string, args map[string]any) map[string]any {
	a.t.Helper()
	res := callTool(a.t, cs, tool, args)
	a.got[tool] = append(a.got[tool], res)
	return structured[map[string]any](a.t, res)
}

// must is call for an answer that is not a failure.
func (a *answers) must(cs *mcp.ClientSession, tool string, args map[string]any) map[string]any {
	a.t.Helper()
	m := a.call(cs, tool, args)
	if res := a.got[tool][len(a.got[tool])-1]; res.IsError {
		a.t.Fatalf("%s %v: %s", tool, args, text(res))
	}
	return m
}

// kind names what an answer is: a failure, a waiting call's, a carried
// call's, or the tool's own.
func kind(res *mcp.CallToolResult) string {
	m, _ := res.StructuredContent.(map[string]any)
	switch {
	case res.IsError:
		return "failure"
	case m["status"] == string(confirm.StatusUnknown) && m["correlation_id"] != nil && m["tool"] == nil:
		return "waiting"
	case m["status"] == string(tools.ToolCarried):
		return "carried"
	}
	return "done"
}

// "output schemas from the one tool table": every tool the fixture's
// personas can call answers, carried out and failed (and the waiting,
// joined and carried answers of confirmed calls), with structured content
// its listed output schema admits; and the table's shapes name every
// member the answers carried out have.
func TestEveryAnswerIsAdmittedByItsOutputSchema(t *testing.T) {
	f := newFixture(t)
	sec := f.persona(t, "root/secretary", "Spica")
	lead := f.persona(t, "work/core/lead", "Porrima")
	dep := f.persona(t, "work/core/deputy", "Zaniah")
	opts := Options{ConfirmWait: 300 * time.Millisecond}
	rs, rl, rd := f.runtime(t, sec, opts), f.runtime(t, lead, opts), f.runtime(t, dep, opts)
	S, L, D := connect(t, rs, nil), connect(t, rl, nil), connect(t, rd, nil)
	a := &answers{t: t, schemas: map[string]*jsonschema.Schema{}, by: map[string]*mcp.ClientSession{}, got: map[string][]*mcp.CallToolResult{}}
	for _, cs := range []*mcp.ClientSession{S, L, D} {
		a.list(cs)
	}
	for name, content := range map[string]string{"NOTES.md": "notes\n", "BIN": "a\x00b"} {
		if err := os.WriteFile(filepath.Join(rd.Workspace().Dir(), name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(rs.Workspace().Dir(), "NOTES.md"), []byte("notes\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	// Every tool once carried out.
	a.must(D, "workspace_list", nil)
	a.must(D, "workspace_stat", map[string]any{"path": "NOTES.md"})
	a.must(D, "workspace_hash", map[string]any{"path": "NOTES.md"})
	a.must(D, "workspace_read", map[string]any{"path": "NOTES.md"})
	a.must(D, "workspace_read", map[string]any{"path": "BIN"})
	a.must(D, "workspace_write", map[string]any{"path": "FINDINGS.md", "content": "x"})
	a.must(D, "workspace_write", map[string]any{"path": "FINDINGS.md", "content": "y", "action": "overwrite"})
	a.must(D, "workspace_write", map[string]any{"path": "FINDINGS.md", "action": "delete"})
	a.must(D, "send_broker_message", map[string]any{"to": "work/core/lead", "subject": "s", "body": "hi"})
	inbox := a.must(L, "list_coordination_messages", map[string]any{"limit": 1})
	first, _ := inbox["items"].([]any)[0].(map[string]any)
	a.must(L, "ack_coordination_message", map[string]any{"message": first["id"]})
	a.must(L, "list_peers", nil)
	a.must(L, "lookup_sender", map[string]any{"address": "work/core/deputy"})
	a.must(L, "set_summary", map[string]any{"summary": "porting"})
	a.must(L, "set_activity", map[string]any{"activity": "reading"})
	a.must(L, "reconcile_wake", nil)
	d := a.must(L, "raise_decision", map[string]any{"question": "which?", "options": []string{"a", "b"}, "context": "c"})
	a.must(L, "list_decisions", nil)
	a.must(L, "resolve_decision", map[string]any{"decision": d["id"], "choice": "a", "reason": "r"})
	task := a.must(L, "assign_task", map[string]any{"assignee": "work/core/deputy", "title": "t", "brief": "b", "bounds": []string{"x"}})
	a.must(D, "list_tasks", nil)
	a.must(D, "get_task", map[string]any{"task": task["id"]})
	a.must(D, "report_task", map[string]any{"task": task["id"], "progress": "p", "evidence": []string{"e"}, "state": "in-progress"})
	run := a.must(D, "create_run", map[string]any{"task": task["id"], "title": "first"})
	a.must(D, "advance_run", map[string]any{"run": run["id"], "state": "running", "note": "n"})
	a.must(D, "append_run_event", map[string]any{"run": run["id"], "text": "e"})
	a.must(D, "record_artifact", map[string]any{"run": run["id"], "name": "notes", "path": "NOTES.md"})
	a.must(D, "list_runs", map[string]any{"task": task["id"]})
	a.must(D, "get_run", map[string]any{"run": run["id"]})
	a.must(L, "read_artifact_v1", map[string]any{"run": run["id"], "name": "notes"})
	a.must(L, "query_graph_context", map[string]any{"query": "t"})
	a.must(L, "cancel_task_v1", map[string]any{"task": task["id"], "reason": "r"})

	// A deputy's run of a task not its own waits on its lead: the waiting
	// answer, then the lead lists and decides it, and the deputy's call
	// again is carried out.
	other := a.must(L, "assign_task", map[string]any{"assignee": "work/core/deputy", "title": "t2", "brief": "b"})
	a.must(L, "reassign_task_v1", map[string]any{"task": other["id"], "assignee": "work/core/lead", "reason": "r"})
	waiting := a.must(D, "create_run", map[string]any{"task": other["id"]})
	routed := a.must(L, "list_confirmations_v1", nil)
	conf, _ := routed["items"].([]any)[0].(map[string]any)
	a.must(L, "decide_confirmation_v1", map[string]any{"confirmation": conf["id"], "decision": "approve", "reason": "ok"})
	a.must(D, "create_run", map[string]any{"task": other["id"], "correlation_id": waiting["correlation_id"]})

	// The human surface.
	item := a.must(S, "send_human_message", map[string]any{"text": "hello"})
	reply, err := f.op.ReplyInbox(context.Background(), item["id"].(string), "thanks")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.op.ReactInbox(context.Background(), item["id"].(string), "approve", "react-1"); err != nil {
		t.Fatal(err)
	}
	a.must(S, "reply_human_message", map[string]any{"message": reply.ID, "text": "x"})
	a.must(S, "ack_human_message", map[string]any{"message": reply.ID})
	a.must(S, "start_typing", map[string]any{"thread": item["id"]})
	a.must(S, "stop_typing", nil)
	a.must(S, "list_reaction_ids", nil)
	a.must(S, "apply_human_reaction", map[string]any{"message": reply.ID, "reaction": "ack"})
	card := a.must(S, "send_human_card", map[string]any{"title": "ship?", "body": "b", "actions": []string{"ship", "hold"}})
	if _, err := f.op.AnswerInbox(context.Background(), card["id"].(string), "ship"); err != nil {
		t.Fatal(err)
	}
	a.must(S, "send_human_todo", map[string]any{"title": "c", "items": []string{"a"}})
	a.must(S, "send_human_file", map[string]any{"path": "NOTES.md", "caption": "c"})
	a.must(S, "get_human_surface_status", nil)
	a.must(S, "list_coordination_messages", map[string]any{"state": "all"})

	// A publication waits, is joined and carried out once approved, and
	// is answered as carried after that.
	pub := a.must(S, stamp.PublishTool, map[string]any{"destination": "https://example.org/x", "action": "deploy"})
	approved := f.approveWhenAsked(t, sec.ID)
	<-approved
	again := map[string]any{"destination": "https://example.org/x", "action": "deploy", "correlation_id": pub["correlation_id"]}
	a.must(S, stamp.PublishTool, again)
	a.must(S, stamp.PublishTool, again)

	// Failures: refused arguments for every tool, and a few of each kind.
	for _, row := range tools.All() {
		a.call(a.by[row.Name], row.Name, map[string]any{"no_such_argument": 1})
	}
	a.call(D, "workspace_read", map[string]any{"path": ".env"})
	a.call(D, "workspace_write", map[string]any{"path": "OUT.md", "content": "x"})
	a.call(D, "workspace_read", map[string]any{"path": "x", "workspace": "repository"})
	a.call(L, "get_task", map[string]any{"task": "t-nope"})

	// Every answer carries structured content its output schema admits;
	// every tool was seen carried out and failed.
	seen := map[string]map[string]bool{}
	for tool, results := range a.got {
		s := a.schemas[tool]
		for _, res := range results {
			k := kind(res)
			if seen[k] == nil {
				seen[k] = map[string]bool{}
			}
			seen[k][tool] = true
			if res.StructuredContent == nil {
				t.Errorf("%s: a %s answer without structured content: %s", tool, k, text(res))
				continue
			}
			if err := admits(s, res.StructuredContent); err != nil {
				b, _ := json.Marshal(res.StructuredContent)
				t.Errorf("%s: its output schema refuses its %s answer %s:\n%v", tool, k, b, err)
			}
		}
	}
	// And each answer carried out names no member its shape leaves out:
	// the table describes what the tools really answer.
	for tool, results := range a.got {
		row, _ := tools.Lookup(tool)
		for _, res := range results {
			if kind(res) != "done" {
				continue
			}
			m, _ := res.StructuredContent.(map[string]any)
			var least []string
			for i, r := range row.Answers {
				if left := undescribed(r, m, ""); i == 0 || len(left) < len(least) {
					least = left
				}
			}
			if len(least) > 0 {
				t.Errorf("%s answers members its shape does not name: %v", tool, least)
			}
		}
	}
	for _, row := range tools.All() {
		if !seen["done"][row.Name] || !seen["failure"][row.Name] {
			t.Errorf("%s was not seen both carried out and failed", row.Name)
		}
	}
	if !seen["waiting"]["create_run"] || !seen["waiting"][stamp.PublishTool] || !seen["carried"][stamp.PublishTool] {
		t.Errorf("waiting answers seen %v, carried %v; want create_run's and the publication's waiting, the publication's carried", seen["waiting"], seen["carried"])
	}
}
