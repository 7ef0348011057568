package mcpserver

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/tools"
)

// atLimit is a value of p exactly at its schema's limits: a list of
// MaxItems distinct items (its enum's values for an enum list), each
// MaxLength bytes; a string of MaxLength bytes. ok is false for a value
// the schema shapes otherwise (a pattern, an enum, an integer, content).
func atLimit(p tools.Param, extra int) (any, bool) {
	fill := func(prefix string, n int) string { return prefix + strings.Repeat("x", n-len(prefix)) }
	switch {
	case p.Type == tools.TypeStrings && len(p.Enum) > 0:
		if extra > 0 {
			return append(append([]string(nil), p.Enum...), p.Enum[0]), true
		}
		return p.Enum[:p.MaxItems], true
	case p.Type == tools.TypeStrings:
		items := make([]string, p.MaxItems+extra)
		for i := range items {
			items[i] = fill(fmt.Sprintf("item-%d-", i), p.MaxLength)
		}
		return items, true
	case (p.Type == tools.TypeString || p.Type == tools.TypeText) && p.Pattern == "" && len(p.Enum) == 0:
		return fill("text-", p.MaxLength+extra), true
	}
	return nil, false
}

// "schema limits equal enforced limits": for every list argument of the
// tool table (and every free text of the same calls), a value exactly at
// the limits its schema advertises is accepted by the rule behind the tool
// — a decision's options, a card's actions, a todo's items were refused
// below what the schema promised — and one past them is refused by the
// schema. The test fails on a list argument it has no call for, so a new
// one cannot go unchecked.
func TestSchemaLimitsAreTheEnforcedLimits(t *testing.T) {
	f := newFixture(t)
	sec := f.persona(t, "root/secretary", "Porrima")
	lead := f.persona(t, "work/core/lead", "Spica")
	deputy := f.persona(t, "work/core/deputy", "Zaniah")
	secS := connect(t, f.runtime(t, sec, Options{ConfirmWait: time.Millisecond}), nil)
	leadS := connect(t, f.runtime(t, lead, Options{ConfirmWait: time.Millisecond}), nil)
	depS := connect(t, f.runtime(t, deputy, Options{ConfirmWait: time.Millisecond}), nil)

	assigned := callTool(t, leadS, "assign_task", map[string]any{"assignee": "work/core/deputy", "title": "t", "brief": "b"})
	task, _ := structured[map[string]any](t, assigned)["id"].(string)
	if assigned.IsError || task == "" {
		t.Fatalf("assign_task: %s", text(assigned))
	}
	// calls are a valid call of each tool with a list or free-text
	// argument, and the session of a persona whose stamp allows it.
	calls := map[string]struct {
		cs   *mcp.ClientSession
		args map[string]any
	}{
		"raise_decision":      {leadS, map[string]any{"question": "q", "options": []string{"a", "b"}}},
		"assign_task":         {leadS, map[string]any{"assignee": "work/core/deputy", "title": "t", "brief": "b"}},
		"report_task":         {depS, map[string]any{"task": task, "progress": "p"}},
		"send_human_card":     {secS, map[string]any{"title": "t"}},
		"send_human_todo":     {secS, map[string]any{"title": "t", "items": []string{"i"}}},
		"query_graph_context": {leadS, map[string]any{"query": "q"}},
		"send_broker_message": {leadS, map[string]any{"to": "work/core/deputy", "body": "b"}},
		"send_human_message":  {secS, map[string]any{"text": "t"}},
		"set_summary":         {leadS, map[string]any{"summary": "s"}},
		"set_activity":        {leadS, map[string]any{"activity": "a"}},
		"create_run":          {depS, map[string]any{"task": task}},
	}
	for _, row := range tools.All() {
		c, ok := calls[row.Name]
		for _, p := range row.Params {
			if p.Type == tools.TypeStrings && !ok {
				t.Errorf("%s takes the list %q: give the test a call of it", row.Name, p.Name)
			}
			if !ok || p.Name == "query" { // a graph query is bounded in words too (graph.MaxWords)
				continue
			}
			for _, extra := range []int{0, 1} {
				v, shaped := atLimit(p, extra)
				if !shaped {
					break
				}
				args := map[string]any{}
				for k, x := range c.args {
					args[k] = x
				}
				args[p.Name] = v
				res := callTool(t, c.cs, row.Name, args)
				switch {
				case extra == 0 && (res.IsError || structured[Answer](t, res).Status == confirm.StatusUnknown):
					t.Errorf("%s: %q exactly at its schema's limits (%d items, %d bytes): %.300s", row.Name, p.Name, p.MaxItems, p.MaxLength, text(res))
				case extra == 1 && (!res.IsError || structured[Failure](t, res).Code != "invalid_arguments"):
					t.Errorf("%s: %q past its schema's limits: %.300s; want invalid_arguments", row.Name, p.Name, text(res))
				}
			}
		}
	}
}
