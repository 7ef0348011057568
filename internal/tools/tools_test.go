package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/termtext"
)

// TestEveryInventoryToolHasOneRow: the table and the inventory name the
// same tools in the same order.
func TestEveryInventoryToolHasOneRow(t *testing.T) {
	var inv, rows []string
	for _, tool := range stamp.Inventory() {
		inv = append(inv, tool.Name)
	}
	for _, row := range All() {
		rows = append(rows, row.Name)
	}
	if !slices.Equal(inv, rows) {
		t.Fatalf("table rows %v\nwant the inventory %v", rows, inv)
	}
}

// TestEverySchemaCompilesAndIsStrict: each schema compiles, is an object
// refusing unknown properties, and bounds every string, integer and list.
func TestEverySchemaCompilesAndIsStrict(t *testing.T) {
	if _, err := schemas(); err != nil {
		t.Fatal(err)
	}
	for _, row := range All() {
		var s struct {
			Type  string                    `json:"type"`
			Extra *bool                     `json:"additionalProperties"`
			Props map[string]map[string]any `json:"properties"`
		}
		if err := json.Unmarshal(row.Schema(), &s); err != nil {
			t.Fatalf("%s: %v", row.Name, err)
		}
		if s.Type != "object" || s.Extra == nil || *s.Extra {
			t.Errorf("%s: schema is not a strict object: %s", row.Name, row.Schema())
		}
		if _, ok := s.Props["correlation_id"]; !ok {
			t.Errorf("%s: no correlation_id", row.Name)
		}
		for name, p := range s.Props {
			bounded := p["maxLength"] != nil || p["maximum"] != nil && p["minimum"] != nil ||
				p["maxItems"] != nil && p["items"].(map[string]any)["maxLength"] != nil
			if !bounded {
				t.Errorf("%s.%s is unbounded: %v", row.Name, name, p)
			}
			if p["description"] == nil {
				t.Errorf("%s.%s has no description", row.Name, name)
			}
		}
		if row.Description == "" {
			t.Errorf("%s has no description", row.Name)
		}
	}
}

// TestMappingAgreesWithTheInventory: each row's target kind is one its
// inventory row reaches, each shape one its kind carries, and only the
// workspace and publication tools are the runtime's.
func TestMappingAgreesWithTheInventory(t *testing.T) {
	for _, row := range All() {
		inv, _ := stamp.LookupTool(row.Name)
		if !slices.Contains(inv.Reaches, stamp.Reach(row.Target.Kind.String())) {
			t.Errorf("%s: target %s, the inventory says it reaches %v", row.Name, row.Target.Kind, inv.Reaches)
		}
		shapes := []stamp.Shape{row.Shape}
		if row.ShapeArg != "" {
			shapes = nil
			for _, c := range row.ShapeOf {
				shapes = append(shapes, c.Shape)
			}
		}
		for _, s := range shapes {
			if !slices.Contains(inv.Shapes, s) {
				t.Errorf("%s: shape %s is not one a %s tool carries (%v)", row.Name, s, inv.Kind, inv.Shapes)
			}
		}
		if want := inv.Group == "workspace" || inv.Kind == stamp.KindPublish; row.Runtime != want {
			t.Errorf("%s: Runtime %v, want %v", row.Name, row.Runtime, want)
		}
	}
}

// records is a fixed set of stored records for mapping tests.
type records map[string]confirm.Target

func (r records) Record(_ context.Context, kind confirm.TargetKind, id string) (confirm.Target, error) {
	t, ok := r[kind.String()+":"+id]
	if !ok {
		return confirm.Target{}, fmt.Errorf("%s %s: %w", kind, id, ErrNoRecord)
	}
	return t, nil
}

func (r records) Seat(_ context.Context, address string) (registry.Address, error) {
	return registry.ParseAddress(address)
}

var lead = Caller{PersonaID: "p-lead", Address: registry.Address{Scope: "work", Project: "core", Role: "lead"}, Human: "human:henry"}

var stored = records{
	"task:t-1": {Kind: confirm.TargetTask, Scope: "work", Project: "web", Value: "t-1"},
	"run:r-1":  {Kind: confirm.TargetRun, Scope: "work", Project: "web", Task: "t-1", Value: "r-1"},
}

func call(t *testing.T, tool, args string) (confirm.Target, stamp.Shape, error) {
	t.Helper()
	row, err := Lookup(tool)
	if err != nil {
		t.Fatal(err)
	}
	a, err := row.Validate(json.RawMessage(args))
	if err != nil {
		return confirm.Target{}, "", err
	}
	return row.Operation(context.Background(), lead, a, "c1", stored)
}

// TestArgumentsMapToTheOperation: targets come from the arguments only
// where they name a path, address, surface or URL; a record's scope and
// project are the stored record's, whatever the caller is.
func TestArgumentsMapToTheOperation(t *testing.T) {
	cases := []struct {
		tool, args, target string
		shape              stamp.Shape
	}{
		{"workspace_read", `{"path":"memory/./notes.md","offset":4}`, "path:memory/notes.md", stamp.ShapeReadRange},
		{"workspace_list", `{}`, "path:.", stamp.ShapeReadMeta},
		{"workspace_write", `{"path":"QUEUE.md","workspace":"repository","action":"delete"}`, "path@repository:QUEUE.md", stamp.ShapeDelete},
		{"workspace_write", `{"path":"QUEUE.md","content":"x\u0000y"}`, "path:QUEUE.md", stamp.ShapeWriteCreate},
		{"send_broker_message", `{"to":"work/core/deputy","body":"hello\nthere"}`, "address:work/core/deputy", stamp.ShapeMessageSend},
		{"list_tasks", `{"limit":10}`, "address:work/core/lead", stamp.ShapeReadMeta},
		{"get_task", `{"task":"t-1"}`, "task:work/web/t-1", stamp.ShapeReadMeta},
		{"get_run", `{"run":"r-1"}`, "run:work/web/t-1/r-1", stamp.ShapeReadMeta},
		{"create_run", `{"task":"t-1"}`, "run:work/web/t-1/" + NewRecordID(confirm.TargetRun, "p-lead", "c1"), stamp.ShapeRecordWrite},
		{"assign_task", `{"assignee":"work/web/deputy","title":"t","brief":"b"}`, "task:work/web/" + NewRecordID(confirm.TargetTask, "p-lead", "c1"), stamp.ShapeRecordWrite},
		{"raise_decision", `{"question":"q","options":["a","b"]}`, "decision:work/core/" + NewRecordID(confirm.TargetDecision, "p-lead", "c1"), stamp.ShapeRecordWrite},
		{"send_human_message", `{"text":"hi"}`, "surface:virgo-channel/human:henry", stamp.ShapeMessageSend},
		{"send_human_card", `{"to":"human:ada","title":"t"}`, "surface:virgo-channel/human:ada", stamp.ShapeMessageSend},
		{stamp.PublishTool, `{"destination":"https://Example.org/x","action":"deploy"}`, "external:https://example.org/x", stamp.ShapeDeploy},
	}
	for _, c := range cases {
		got, shape, err := call(t, c.tool, c.args)
		if err != nil {
			t.Errorf("%s %s: %v", c.tool, c.args, err)
			continue
		}
		if got.String() != c.target || shape != c.shape {
			t.Errorf("%s %s: %s %s, want %s %s", c.tool, c.args, got, shape, c.target, c.shape)
		}
	}
}

// TestHostileArgumentsGetNamedErrors: every malformed, oversized, unclean
// or escaping argument is refused with a named error, never a panic.
func TestHostileArgumentsGetNamedErrors(t *testing.T) {
	long := strings.Repeat("a", MaxLine+1)
	cases := []struct {
		tool, args string
		want       error
	}{
		{"get_task", `{"task":"t-1","scope":"work","project":"core"}`, ErrInvalidArguments}, // no scope from arguments
		{"get_task", `{}`, ErrInvalidArguments},
		{"get_task", `[]`, ErrInvalidArguments},
		{"get_task", `{"task":1}`, ErrInvalidArguments},
		{"get_task", `{"task":"T-1"}`, ErrInvalidArguments},
		{"get_task", `{"task":"../t-1"}`, ErrInvalidArguments},
		{"get_task", `{"task":"t-1"`, ErrInvalidArguments},
		{"get_task", "{\"task\":\"t-1\xff\"}", ErrInvalidArguments},
		{"get_task", `{"task":"t-404"}`, ErrNoRecord},
		{"assign_task", `{"assignee":"work/core/deputy","title":"` + long + `","brief":"b"}`, ErrInvalidArguments},
		{"assign_task", `{"assignee":"work/core/deputy","title":"a\u001b[2Jb","brief":"b"}`, ErrInvalidArguments},
		{"assign_task", `{"assignee":"work/core/deputy","title":"a\u202eb","brief":"b"}`, ErrInvalidArguments},
		{"assign_task", `{"assignee":"work/core/deputy","title":"one\ntwo","brief":"b"}`, ErrInvalidArguments},
		{"assign_task", `{"assignee":"work/lead","title":"t","brief":"b"}`, confirm.ErrTargetSyntax},
		{"raise_decision", `{"question":"q","options":["only one"]}`, ErrInvalidArguments},
		{"raise_decision", `{"question":"q","options":[` + strings.Repeat(`"o",`, MaxListItems) + `"o"]}`, ErrInvalidArguments},
		{"workspace_read", `{"path":"../../etc/passwd"}`, confirm.ErrDotDot},
		{"workspace_read", `{"path":"/etc/passwd"}`, confirm.ErrAbsolutePath},
		{"workspace_read", `{"path":"a","length":-1}`, ErrInvalidArguments},
		{"workspace_read", `{"path":"a","offset":1.5}`, ErrInvalidArguments},
		{"workspace_write", `{"path":"a","action":"chmod"}`, ErrInvalidArguments},
		{"send_broker_message", `{"to":"Work/Core/Lead","body":"x"}`, ErrInvalidArguments},
		{"send_human_message", `{"to":"human:henry/../x","text":"x"}`, ErrInvalidArguments},
		{stamp.PublishTool, `{"destination":"http://example.org"}`, ErrInvalidArguments},
		{stamp.PublishTool, `{"destination":"https://user:pw@example.org"}`, confirm.ErrTargetSyntax},
	}
	for _, c := range cases {
		_, _, err := call(t, c.tool, c.args)
		if !errors.Is(err, c.want) {
			t.Errorf("%s %s: %v, want %v", c.tool, c.args, err, c.want)
		}
	}
	if _, err := Lookup("rm_rf"); !errors.Is(err, ErrUnknownTool) {
		t.Errorf("unknown tool: %v", err)
	}
	row, _ := Lookup("workspace_write")
	if _, err := row.Validate(json.RawMessage(`{"path":"a","content":"` + strings.Repeat("x", MaxArgs) + `"}`)); !errors.Is(err, ErrInvalidArguments) {
		t.Errorf("oversized arguments: %v", err)
	}
}

// TestNewRecordIDsAreStablePerCall: a retry under the same correlation id
// names the same record; another id or generation names another.
func TestNewRecordIDsAreStablePerCall(t *testing.T) {
	a := NewRecordID(confirm.TargetTask, "p1", "c1")
	if a != NewRecordID(confirm.TargetTask, "p1", "c1") {
		t.Fatal("not stable")
	}
	for _, other := range []string{NewRecordID(confirm.TargetTask, "p1", "c2"), NewRecordID(confirm.TargetTask, "p2", "c1")} {
		if other == a {
			t.Fatalf("collision: %s", a)
		}
	}
	if _, err := confirm.NormalizeID(a); err != nil || !strings.HasPrefix(a, "t-") {
		t.Fatalf("id %q: %v", a, err)
	}
}

// invisibleRunes are one of each kind of character that was stored in 31
// fields and reached the command line and the console raw: the Tag block,
// the shaping controls, variation selectors, the combining grapheme
// joiner, the Hangul fillers, format controls of other scripts, a joiner
// and a line separator.
var invisibleRunes = []rune{
	0xE0001, 0xE0041, 0xE007F, 0x206A, 0x206F, 0xFE0F, 0xE0100, 0x180B, 0x034F, 0x115F, 0x1160, 0x3164, 0xFFA0,
	0x1D173, 0x1BCA0, 0x13430, 0x17B4, 0x0600, 0x200D, 0x2028, 0x0085,
}

// Every text argument of every tool — each a field a persona writes and
// a human or another model reads — refuses every such character, naming
// it. Only a workspace write's content is taken as it is (it goes to the
// persona's own file and is escaped whenever it is printed).
func TestEveryTextArgumentRefusesInvisibleCharacters(t *testing.T) {
	fields := 0
	for _, tool := range All() {
		for _, p := range tool.params() {
			if p.Type != TypeString && p.Type != TypeText && p.Type != TypeStrings {
				continue
			}
			fields++
			for _, r := range invisibleRunes {
				s := "a" + string(r) + "b"
				var v any = s
				if p.Type == TypeStrings {
					v = []any{"fine", s}
				}
				if err := p.check(v); !errors.Is(err, termtext.ErrUnsafeChar) || !strings.Contains(err.Error(), fmt.Sprintf("%U", r)) {
					t.Errorf("%s.%s: %+q: %v, want ErrUnsafeChar naming %U", tool.Name, p.Name, s, err, r)
				}
			}
		}
	}
	if fields < 31 {
		t.Fatalf("only %d text arguments: the table is not read", fields)
	}
	// Through the whole validation too, as the hub and the MCP server call it.
	for _, c := range []struct{ tool, args string }{
		{"assign_task", `{"assignee":"work/core/deputy","title":"ship\udb40\udc41 it","brief":"b"}`},
		{"assign_task", `{"assignee":"work/core/deputy","title":"t","brief":"fill\u3164er"}`},
		{"raise_decision", `{"question":"q","options":["yes\ufe0f","no"]}`},
	} {
		if _, _, err := call(t, c.tool, c.args); !errors.Is(err, ErrInvalidArguments) {
			t.Errorf("%s %s: %v, want ErrInvalidArguments", c.tool, c.args, err)
		}
	}
}

// TestEveryEffectBearingArgumentIsBound: the one rule of Tool.Bound over
// the whole table. Every argument of every tool but paging is bound (a
// change of it changes the operation an approval binds), correlation_id
// never is, and a file's content is bound by its sha256 and size, not
// carried. A parameter marked Unbound that is not paging fails here.
func TestEveryEffectBearingArgumentIsBound(t *testing.T) {
	paging := map[string]bool{}
	for _, p := range page() {
		paging[p.Name] = true
	}
	sample := func(p Param, alt bool) any {
		s := "v"
		if alt {
			s = "w"
		}
		switch p.Type {
		case TypeInteger:
			if alt {
				return json.Number("4")
			}
			return json.Number("3")
		case TypeStrings:
			return []any{s}
		}
		return s
	}
	for _, row := range All() {
		m := map[string]any{"correlation_id": "c-1"}
		for _, p := range row.Params {
			m[p.Name] = sample(p, false)
			if p.Unbound && !paging[p.Name] {
				t.Errorf("%s: argument %q is marked Unbound but is not paging: it changes the effect", row.Name, p.Name)
			}
		}
		bound := row.Bound(Args{m: m})
		var names []string
		for _, a := range bound {
			names = append(names, a.Name)
		}
		for _, p := range row.Params {
			if p.Unbound != !slices.Contains(names, p.Name) {
				t.Errorf("%s: argument %q bound=%v, want %v", row.Name, p.Name, slices.Contains(names, p.Name), !p.Unbound)
			}
			if p.Unbound {
				continue
			}
			changed := map[string]any{}
			for k, v := range m {
				changed[k] = v
			}
			changed[p.Name] = sample(p, true)
			if slices.Equal(row.Bound(Args{m: changed}), bound) {
				t.Errorf("%s: changing argument %q leaves the bound operation as it was", row.Name, p.Name)
			}
		}
		if slices.Contains(names, "correlation_id") {
			t.Errorf("%s: correlation_id is bound", row.Name)
		}
	}
	w, _ := Lookup("workspace_write")
	got := w.Bound(Args{m: map[string]any{"path": "QUEUE.md", "content": "hello"}})
	want := []confirm.Argument{{Name: "path", Value: "QUEUE.md"},
		{Name: "content", Value: "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824, 5 bytes"}}
	if !slices.Equal(got, want) {
		t.Fatalf("workspace_write's bound content: %v\nwant %v", got, want)
	}
}

// TestEveryToolDeclaresItsAnswers: every row names the shape of what it
// answers, each member once and typed, and its output schema (with no
// other answer added) compiles as an object at its root: MCP's
// outputSchema.
func TestEveryToolDeclaresItsAnswers(t *testing.T) {
	var check func(where string, r Result)
	check = func(where string, r Result) {
		names := map[string]bool{}
		for _, m := range r {
			if m.Name == "" || names[m.Name] || m.Kind < KindString || m.Kind > KindAny {
				t.Errorf("%s: member %+v is unnamed, named twice or of no kind", where, m)
			}
			names[m.Name] = true
			check(where+"."+m.Name, m.Members)
		}
	}
	for _, row := range All() {
		if len(row.Answers) == 0 {
			t.Errorf("%s declares no answer", row.Name)
		}
		for _, r := range row.Answers {
			check(row.Name, r)
		}
		var root struct {
			Type  string `json:"type"`
			AnyOf []any  `json:"anyOf"`
		}
		if err := json.Unmarshal(row.OutputSchema(), &root); err != nil || root.Type != "object" || len(root.AnyOf) != len(row.answers(nil)) {
			t.Errorf("%s: output schema %s; want an object, one of its answers", row.Name, row.OutputSchema())
		}
		if _, err := CompileSchema("https://virgo-hub.github.io/schemas/tools/"+row.Name+".output.json", row.OutputSchema()); err != nil {
			t.Errorf("%s: output schema does not compile: %v", row.Name, err)
		}
	}
	// The carried answer names every member a ToolCall can carry.
	now := time.Now()
	b, _ := json.Marshal(ToolCall{Status: ToolCarried, Tool: "x", CorrelationID: "x", ConfirmationID: "x",
		Result: json.RawMessage(`{}`), CarriedAt: &now})
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	for name := range m {
		if !slices.ContainsFunc(carried, func(x Member) bool { return x.Name == name }) {
			t.Errorf("ToolCall's member %q is not in the carried answer's shape", name)
		}
	}
}
