package mcpserver

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/tools"
)

// tools/list says what each tool is: every annotation stated (a missing
// destructive or open-world hint means true), each the tool table's.
func TestToolsListSaysWhatEachToolIs(t *testing.T) {
	f := newFixture(t)
	p := f.persona(t, "work/core/lead", "Spica")
	cs := connect(t, f.runtime(t, p, Options{}), nil)
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*mcp.ToolAnnotations{}
	for _, tool := range lt.Tools {
		a := tool.Annotations
		if a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s: annotations %+v; want every hint stated", tool.Name, a)
			continue
		}
		row, _ := tools.Lookup(tool.Name)
		h := row.Hints()
		if a.ReadOnlyHint != h.ReadOnly || *a.DestructiveHint != h.Destructive || a.IdempotentHint != h.Idempotent || *a.OpenWorldHint != h.OpenWorld {
			t.Errorf("%s: annotations %+v; the table says %+v", tool.Name, a, h)
		}
		got[tool.Name] = a
	}
	for name, want := range map[string]tools.Hints{
		"workspace_read":  {ReadOnly: true, Idempotent: true},
		"workspace_write": {Destructive: true, Idempotent: true},
		stamp.PublishTool: {Destructive: true, OpenWorld: true},
		"assign_task":     {},
	} {
		a := got[name]
		if a == nil || a.ReadOnlyHint != want.ReadOnly || *a.DestructiveHint != want.Destructive || a.IdempotentHint != want.Idempotent || *a.OpenWorldHint != want.OpenWorld {
			t.Errorf("%s: annotations %+v; want %+v", name, a, want)
		}
	}
}
