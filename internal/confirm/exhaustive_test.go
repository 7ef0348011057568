package confirm

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/confirm/confirmtest"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// This file checks Authorize exhaustively: every tool of the inventory ×
// every shape × every class × representative targets, against expectations
// written here by hand from the spec's text (virgo-capability-surface.txt).
// Nothing below reads the class matrix, the inventory's kinds, shapes or
// reaches, the shape table or the boundary table of the code under test:
// the inventory is used only to enumerate the tools, and a test checks that
// the hand-written list names exactly those.

// specCells is the spec's "Class matrix", quoted row by row, in the column
// order secretary, team-coordinator, project-lead, coder-deputy.
var specCells = map[string][4]string{
	"standard workspace and coordination":  {"R/W", "R/W", "R/W", "R/W"},
	"peer verification and presence":       {"R/W", "R/W", "R/W", "R/W"},
	"bounded graph context query":          {"R", "R", "R", "R"},
	"decisions: list / raise":              {"R/W", "R/W", "R/W", "R/W"},
	"decisions: resolve":                   {"W¹", "W²", "W", "-"},
	"tasks: list / get / report":           {"R/W", "R/W", "R/W", "R/W"},
	"tasks: assign":                        {"W", "W", "W", "-"},
	"runs and artifacts":                   {"R", "R", "R/W", "R/W (assigned task)"},
	"human messages, replies, ack, typing": {"W (bound surfaces)", "W (bound surfaces)", "-", "-"},
	"reaction catalogue and apply":         {"W", "W", "-", "-"},
	"cards, todo cards, file send":         {"W", "W", "-", "-"},
	"human-surface/gateway status":         {"R", "R", "R", "R"},
	"deployment/publication":               {"C", "C", "C", "C"},
	// A versioned row beyond the spec's matrix: "a deputy-scope
	// confirmation goes to the owning lead", a project lead.
	"deputy-scope confirmations": {"-", "-", "W", "-"},
}

// What a tool does: it reads, writes (workspace
// files), records, messages or publishes.
const (
	vRead    = "read"
	vWrite   = "write"
	vRecord  = "record"
	vMessage = "message"
	vPublish = "publish"
)

// specTool is one tool of the spec's "Required tool inventory" (and the
// versioned publication tool), read by hand: its matrix row, what it does,
// and which kinds of target it addresses.
type specTool struct {
	row    string
	verb   string
	target []string
}

var specTools = map[string]specTool{
	// "workspace listing, metadata, hash, and paginated/ranged reads;
	// atomic writes to the mutable paths declared in its own workspace binding"
	"workspace_list":  {"standard workspace and coordination", vRead, []string{"path"}},
	"workspace_stat":  {"standard workspace and coordination", vRead, []string{"path"}},
	"workspace_hash":  {"standard workspace and coordination", vRead, []string{"path"}},
	"workspace_read":  {"standard workspace and coordination", vRead, []string{"path"}},
	"workspace_write": {"standard workspace and coordination", vWrite, []string{"path"}},
	// "coordination inbox list/ack, broker send"
	"send_broker_message":        {"standard workspace and coordination", vMessage, []string{"address"}},
	"list_coordination_messages": {"standard workspace and coordination", vRead, []string{"address"}},
	"ack_coordination_message":   {"standard workspace and coordination", vRecord, []string{"address"}},
	// "wake reconciliation, presence summary/activity, peer listing, and
	// redacted sender lookup"
	"list_peers":     {"peer verification and presence", vRead, []string{"address"}},
	"lookup_sender":  {"peer verification and presence", vRead, []string{"address"}},
	"set_summary":    {"peer verification and presence", vRecord, []string{"address"}},
	"set_activity":   {"peer verification and presence", vRecord, []string{"address"}},
	"reconcile_wake": {"peer verification and presence", vRecord, []string{"address"}},
	// "read-only bounded graph context queries"
	"query_graph_context": {"bounded graph context query", vRead, []string{"address"}},
	// "decision list/raise and task list/get/report for work it owns"
	// A list is of the persona's own records: it addresses the persona
	// (tools table, internal/tools), as the inbox list does.
	"list_decisions":   {"decisions: list / raise", vRead, []string{"address", "decision"}},
	"raise_decision":   {"decisions: list / raise", vRecord, []string{"decision"}},
	"resolve_decision": {"decisions: resolve", vRecord, []string{"decision"}},
	"list_tasks":       {"tasks: list / get / report", vRead, []string{"address", "task"}},
	"get_task":         {"tasks: list / get / report", vRead, []string{"task"}},
	"report_task":      {"tasks: list / get / report", vRecord, []string{"task"}},
	"assign_task":      {"tasks: assign", vRecord, []string{"task"}},
	// versioned: the assigner's side changes a task it may assign
	stamp.CancelTaskTool:   {"tasks: assign", vRecord, []string{"task"}},
	stamp.ReassignTaskTool: {"tasks: assign", vRecord, []string{"task"}},
	// "runs and artifacts"
	"list_runs":        {"runs and artifacts", vRead, []string{"task", "run"}},
	"get_run":          {"runs and artifacts", vRead, []string{"run"}},
	"create_run":       {"runs and artifacts", vRecord, []string{"task", "run"}},
	"advance_run":      {"runs and artifacts", vRecord, []string{"run"}},
	"append_run_event": {"runs and artifacts", vRecord, []string{"run"}},
	"record_artifact":  {"runs and artifacts", vRecord, []string{"run"}},
	// versioned: the evidence a run recorded, read where the run's scope reaches
	stamp.ReadArtifactTool: {"runs and artifacts", vRead, []string{"run"}},
	// versioned: "a deputy-scope confirmation goes to the owning lead"
	stamp.ListConfirmationsTool:  {"deputy-scope confirmations", vRead, []string{"address"}},
	stamp.DecideConfirmationTool: {"deputy-scope confirmations", vRecord, []string{"address"}},
	// "Human-surface tools target the hub service through virgo-channel"
	"send_human_message":       {"human messages, replies, ack, typing", vMessage, []string{"surface"}},
	"reply_human_message":      {"human messages, replies, ack, typing", vMessage, []string{"surface"}},
	"ack_human_message":        {"human messages, replies, ack, typing", vMessage, []string{"surface"}},
	"start_typing":             {"human messages, replies, ack, typing", vMessage, []string{"surface"}},
	"stop_typing":              {"human messages, replies, ack, typing", vMessage, []string{"surface"}},
	"list_reaction_ids":        {"reaction catalogue and apply", vRead, []string{"surface"}},
	"apply_human_reaction":     {"reaction catalogue and apply", vMessage, []string{"surface"}},
	"send_human_card":          {"cards, todo cards, file send", vMessage, []string{"surface"}},
	"send_human_todo":          {"cards, todo cards, file send", vMessage, []string{"surface"}},
	"send_human_file":          {"cards, todo cards, file send", vMessage, []string{"surface"}},
	"get_human_surface_status": {"human-surface/gateway status", vRead, []string{"surface"}},
	// "deployment/publication: C"
	stamp.PublishTool: {"deployment/publication", vPublish, []string{"external"}},
}

// verbShapes: the shapes each kind of tool carries. A write is an atomic
// workspace file operation: creating, replacing, removing a file or changing
// its mode or a credential it holds.
var verbShapes = map[string][]string{
	vRead:    {"read:range", "read:meta"},
	vWrite:   {"write:create", "write:overwrite", "delete", "permission:change", "credential:change"},
	vRecord:  {"record:write"},
	vMessage: {"message:send"},
	vPublish: {"publish:external", "deploy"},
}

// classSeat is one persona per class: its address, the column of
// specCells, and what it is bound to.
type classSeat struct {
	address string
	column  int
	// inScope reports whether a record of scope/project is the persona's:
	// a root seat's subtree is the whole installation, a scope-wide seat's
	// its scope, a project seat's its project.
	inScope func(scope, project string) bool
}

var classSeats = []classSeat{
	{"root/secretary", 0, func(string, string) bool { return true }},
	{"work/coordinator", 1, func(s, _ string) bool { return s == "work" }},
	{"work/core/lead", 2, func(s, p string) bool { return s == "work" && p == "core" }},
	{"work/core/deputy", 3, func(s, p string) bool { return s == "work" && p == "core" }},
}

// specTarget is one representative target, with what the spec's rules
// need to know about it.
type specTarget struct {
	name string
	text string
	kind string
	// path targets
	ownWorkspace, repository, mutable, secret, authority bool
	// address targets
	self bool
	// task, run and decision targets
	scope, project string
	assigned       bool
	// surface targets
	bound bool
}

// targetsFor are the representative targets as seen from seat: own path,
// mutable path, secret and authority paths, another workspace, the own
// workspace named by address, own and other persona,
// assigned and unassigned tasks and runs, another project, another scope,
// bound and unbound surfaces, an external destination.
func targetsFor(seat classSeat) []specTarget {
	path := func(name, text string, t specTarget) specTarget {
		t.name, t.text, t.kind = name, text, "path"
		return t
	}
	rec := func(name, text, kind, scope, project string, assigned bool) specTarget {
		return specTarget{name: name, text: text, kind: kind, scope: scope, project: project, assigned: assigned}
	}
	return []specTarget{
		path("own path", "path:README.md", specTarget{ownWorkspace: true}),
		path("mutable path", "path:memory/notes.md", specTarget{ownWorkspace: true, mutable: true}),
		path("own workspace by address", "path@"+seat.address+":QUEUE.md", specTarget{ownWorkspace: true, mutable: true}),
		path("repository path", "path@repository:cmd/main.go", specTarget{repository: true}),
		path("secret path", "path:.ssh/id_ed25519", specTarget{ownWorkspace: true, secret: true}),
		path("secret under a mutable path", "path:memory/.env", specTarget{ownWorkspace: true, mutable: true, secret: true}),
		path("authority path", "path:CAPABILITY-STAMP.json", specTarget{ownWorkspace: true, authority: true}),
		path("other workspace", "path@work/web/lead:QUEUE.md", specTarget{}),
		{name: "own address", text: "address:" + seat.address, kind: "address", self: true},
		{name: "other persona", text: "address:work/web/lead", kind: "address"},
		rec("assigned task", "task:work/core/t-1", "task", "work", "core", true),
		rec("unassigned task", "task:work/core/t-9", "task", "work", "core", false),
		rec("other project task", "task:work/web/t-1", "task", "work", "web", false),
		rec("other scope task", "task:home/misc/t-1", "task", "home", "misc", false),
		rec("assigned run", "run:work/core/t-1/r-1", "run", "work", "core", true),
		rec("unassigned run", "run:work/core/t-9/r-1", "run", "work", "core", false),
		rec("other project run", "run:work/web/t-1/r-1", "run", "work", "web", false),
		rec("own project decision", "decision:work/core/d-1", "decision", "work", "core", false),
		rec("other project decision", "decision:work/web/d-1", "decision", "work", "web", false),
		{name: "bound surface", text: "surface:virgo-channel/human:henry", kind: "surface", bound: true},
		{name: "unbound surface", text: "surface:virgo-channel/human:nobody", kind: "surface"},
		{name: "external", text: "external:https://example.org/release", kind: "external"},
	}
}

// expected is a hand-written verdict: the boundary by its stable name and
// who decides a confirm.
type expected struct {
	verdict  string
	boundary string
	route    string
}

func allow() expected { return expected{"allow", "none", "none"} }
func denied(b string) expected {
	return expected{"deny", b, "none"}
}
func confirmed(b, route string) expected { return expected{"confirm", b, route} }

// The boundary names the spec's sentences become (the six global ones in
// the spec's order, then the handler's own).
const (
	bCredential  = "credential-or-permission-change"    // "confirm credential or permission changes"
	bDestructive = "destructive-or-irreversible"        // "confirm destructive or materially irreversible operations"
	bPublication = "external-publication-or-deployment" // "confirm consequential external publication or deployment"
	bSecret      = "secret-credential-values"           // "deny reading or exporting secret credential values"
	bAuthority   = "lease-fence-authority-material"     // "deny exporting lease/fence/authority material"
	bCross       = "cross-workspace-project-persona"    // "deny cross-workspace, cross-project, or cross-persona access"
	bNotExposed  = "not-exposed"                        // "- means it is not exposed"
	bScope       = "outside-stamped-scope"              // "W means mutate within stamped scope"
	bShape       = "shape-not-carried-by-tool"          // "R means read/use"
	bDeputy      = "deputy-scope"                       // "a deputy-scope confirmation goes to the owning lead"
	bRelay       = "relayed-resolution"                 // footnote ¹
	bLane        = "lane-approved-resolution"           // footnote ²
)

// expect is the spec's answer for one case, reasoned from its text.
func expect(seat classSeat, toolName string, tool specTool, shape string, tg specTarget) expected {
	cell := specCells[tool.row][seat.column]
	mark, _, _ := strings.Cut(cell, " ")
	mark = strings.TrimRight(mark, "¹²")
	// "- means it is not exposed"; "R means read/use": an R cell exposes
	// only what reads ("A tool is present only when its class needs it").
	if mark == "-" || mark == "R" && tool.verb != vRead {
		return denied(bNotExposed)
	}
	// "deny reading or exporting secret credential values; deny exporting
	// lease/fence/authority material" — whatever the tool.
	switch shape {
	case "credential:read", "credential:export":
		return denied(bSecret)
	case "export:authority":
		return denied(bAuthority)
	}
	// What a tool does decides what it may carry: a read tool never mutates.
	if !slices.Contains(verbShapes[tool.verb], shape) {
		return denied(bShape)
	}
	if !slices.Contains(tool.target, tg.kind) {
		return denied(bScope)
	}
	change := shape == "credential:change" || shape == "permission:change"
	switch tg.kind {
	case "path":
		// "Workspace writes are recoverable and confined by the
		// materialization stamp"; "class overlays may add project worktrees".
		lead := seat.column == 2
		if !tg.ownWorkspace && !(tg.repository && lead) {
			return denied(bCross)
		}
		switch {
		case tg.authority:
			return denied(bAuthority)
		case tg.secret && tool.verb == vRead:
			return denied(bSecret)
		case tg.secret && shape == "delete":
			return confirmed(bDestructive, "bound-human")
		case tg.secret || change:
			// a write to a secret is a credential change; "confirm
			// credential or permission changes" for any target.
			return confirmed(bCredential, "bound-human")
		case tool.verb == vRead:
			return allow()
		case !tg.mutable && !tg.repository:
			return denied(bScope)
		case shape == "delete":
			return confirmed(bDestructive, "bound-human")
		}
		return allow()
	case "address":
		// "broker send, ... peer listing, and redacted sender lookup" reach
		// other personas; the rest is the persona's own ("other personas'
		// archives remain out of scope").
		if tg.self || tool.verb == vMessage || toolName == "list_peers" || toolName == "lookup_sender" {
			return allow()
		}
		return denied(bCross)
	case "task", "run", "decision":
		if !seat.inScope(tg.scope, tg.project) {
			return denied(bCross)
		}
		if toolName == "resolve_decision" {
			switch seat.column {
			case 0: // ¹ "only as a durable relay of the bound human authority's explicit decision"
				return confirmed(bRelay, "bound-human")
			case 1: // ² "only when the bound lane approver authorizes that decision"
				return confirmed(bLane, "lane-approver")
			}
		}
		// "R/W (assigned task)", and "task list/get/report for work it
		// owns": a deputy's work outside its assigned tasks is the owning
		// lead's to confirm.
		deputy := seat.column == 3
		if deputy && (tg.kind == "task" || tg.kind == "run") && !tg.assigned {
			return confirmed(bDeputy, "owning-lead")
		}
		return allow()
	case "surface":
		// "W (bound surfaces)"; gateway status reads health, not content.
		if !tg.bound && toolName != "get_human_surface_status" {
			return denied(bCross)
		}
		return allow()
	}
	// external: "C means the tool is exposed but requires confirmation for
	// the described boundary" — publication or deployment.
	return confirmed(bPublication, "bound-human")
}

// TestSpecToolListIsTheInventory keeps the hand-written list honest: it
// names exactly the inventory's tools, and the table its rows.
func TestSpecToolListIsTheInventory(t *testing.T) {
	var names []string
	for _, inv := range stamp.Inventory() {
		names = append(names, inv.Name)
		if _, ok := specTools[inv.Name]; !ok {
			t.Errorf("inventory tool %s has no hand-written expectation", inv.Name)
		}
	}
	for name, tool := range specTools {
		if !slices.Contains(names, name) {
			t.Errorf("expectation for %s, which is not in the inventory", name)
		}
		if _, ok := specCells[tool.row]; !ok {
			t.Errorf("%s: row %q is not in the spec's matrix", name, tool.row)
		}
	}
	if len(specCells) != len(stamp.Bundles()) {
		t.Errorf("%d hand-written rows, the table has %d", len(specCells), len(stamp.Bundles()))
	}
}

// An exhaustive table from the one inventory
// table — every tool × every shape × every class × representative targets —
// checked against expectations written from the spec's matrix text.
func TestAuthorizeExhaustiveAgainstSpec(t *testing.T) {
	shapes := stamp.Shapes()
	cases, failures := 0, 0
	count := map[string]int{}
	for _, seat := range classSeats {
		st, hash := confirmtest.BuildStamp(t, seat.address, 1)
		// Every tool of the inventory, whether the class's stamp carries it
		// or not: a tool it does not carry is presented anyway.
		p, err := NewPolicy(st, hash, Options{Assignments: TaskSet{"t-1": true}})
		if err != nil {
			t.Fatal(err)
		}
		if want := registry.Profile(seat.addressProfile()); st.Path.Profile != string(want) {
			t.Fatalf("%s is %s, want %s", seat.address, st.Path.Profile, want)
		}
		for _, inv := range stamp.Inventory() {
			tool := specTools[inv.Name]
			for _, shape := range shapes {
				for _, tg := range targetsFor(seat) {
					target, err := ParseTarget(tg.text)
					if err != nil {
						t.Fatalf("%s: %v", tg.text, err)
					}
					o := Operation{Persona: seat.address, Generation: 1, Tool: inv.Name, HandlerAction: inv.HandlerAction,
						Target: target, Shape: shape}
					d := p.Authorize(o)
					got := expected{d.Verdict.String(), d.Boundary.String(), d.Route().String()}
					want := expect(seat, inv.Name, tool, string(shape), tg)
					cases++
					count[want.verdict]++
					if got != want {
						failures++
						if failures <= 40 {
							t.Errorf("%s %s %s on %s (%s): got %v, want %v; %s", seat.address, inv.Name, shape, tg.text, tg.name, got, want, d)
						}
					}
				}
			}
		}
	}
	if failures > 0 {
		t.Fatalf("%d of %d cases disagree with the spec", failures, cases)
	}
	t.Logf("%d cases: %d allow, %d confirm, %d deny", cases, count["allow"], count["confirm"], count["deny"])
	for _, v := range []string{"allow", "confirm", "deny"} {
		if count[v] == 0 {
			t.Errorf("no case expects %s: the table is not exhaustive", v)
		}
	}
}

func (s classSeat) addressProfile() string {
	a, err := registry.ParseAddress(s.address)
	if err != nil {
		panic(fmt.Sprintf("seat %s: %v", s.address, err))
	}
	return string(a.Profile())
}
