package stamp

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// The spec's "Required tool inventory", quoted: "A v1 factory must resolve
// the following names for each class according to the matrix".
var specInventory = map[string]string{
	"workspace":         "workspace_list, workspace_stat, workspace_hash, workspace_read, workspace_write",
	"identity/presence": "list_peers, lookup_sender, set_summary, set_activity, reconcile_wake",
	"coordination":      "send_broker_message, list_coordination_messages, ack_coordination_message",
	"decisions":         "list_decisions, raise_decision, resolve_decision",
	"tasks":             "list_tasks, get_task, report_task, assign_task",
	"runs":              "list_runs, get_run, create_run, advance_run, append_run_event, record_artifact",
	"knowledge":         "query_graph_context",
	"human surface": "send_human_message, reply_human_message, ack_human_message, start_typing, stop_typing, " +
		"list_reaction_ids, apply_human_reaction, send_human_card, send_human_todo, send_human_file, get_human_surface_status",
}

func TestInventoryHoldsTheSpecs38NamesInTheirGroups(t *testing.T) {
	var want []string
	for group, list := range specInventory {
		for _, name := range strings.Split(list, ", ") {
			want = append(want, name)
			inv, ok := LookupTool(name)
			if !ok {
				t.Errorf("required tool %s is not in the table", name)
				continue
			}
			if inv.Group != group {
				t.Errorf("%s: group %q, the spec lists it under %q", name, inv.Group, group)
			}
		}
	}
	if len(want) != 38 {
		t.Fatalf("the quoted inventory has %d names, the spec 38", len(want))
	}
	var got []string
	for _, inv := range inventory {
		if !inv.Versioned {
			got = append(got, inv.Name)
		}
	}
	sort.Strings(want)
	sort.Strings(got)
	if !slices.Equal(got, want) {
		t.Fatalf("unversioned inventory\n got %v\nwant %v", got, want)
	}
}

func TestTableHasUniqueNamesAndActions(t *testing.T) {
	names, actions := map[string]bool{}, map[string]bool{}
	for _, inv := range inventory {
		if names[inv.Name] || actions[inv.HandlerAction] {
			t.Errorf("tool %s / action %s repeated in the table", inv.Name, inv.HandlerAction)
		}
		names[inv.Name], actions[inv.HandlerAction] = true, true
		if !slices.Contains(Scopes(), inv.Scope) {
			t.Errorf("%s: default scope %q outside the vocabulary", inv.Name, inv.Scope)
		}
	}
}

// "Capability bundle	secretary	team-coordinator	project-lead	coder-deputy"
// — the matrix quoted row by row.
var specMatrix = `standard workspace and coordination	R/W	R/W	R/W	R/W
peer verification and presence	R/W	R/W	R/W	R/W
bounded graph context query	R	R	R	R
decisions: list / raise	R/W	R/W	R/W	R/W
decisions: resolve	W¹	W²	W	-
tasks: list / get / report	R/W	R/W	R/W	R/W
tasks: assign	W	W	W	-
runs and artifacts	R	R	R/W	R/W (assigned task)
human messages, replies, ack, typing	W (bound surfaces)	W (bound surfaces)	-	-
reaction catalogue and apply	W	W	-	-
cards, todo cards, file send	W	W	-	-
human-surface/gateway status	R	R	R	R
deployment/publication	C	C	C	C`

func TestMatrixIsTheSpecsTable(t *testing.T) {
	rows := strings.Split(specMatrix, "\n")
	// The spec's rows; a versioned row is the factory's addition.
	spec := slices.DeleteFunc(slices.Clone(Bundles()), func(b Bundle) bool { return b.Versioned })
	if len(rows) != len(spec) {
		t.Fatalf("spec has %d rows, table %d", len(rows), len(spec))
	}
	for i, line := range rows {
		cols := strings.Split(line, "\t")
		b := spec[i]
		if b.Name != cols[0] {
			t.Errorf("row %d: bundle %q, spec %q", i, b.Name, cols[0])
		}
		for j, p := range registry.Profiles {
			if got := CellText(CellFor(b, p)); got != cols[j+1] {
				t.Errorf("%s / %s: cell %q, spec %q", b.Name, p, got, cols[j+1])
			}
		}
	}
	out := RenderMatrix()
	for _, f := range []string{"¹ A secretary resolves a decision only as a durable relay", "² A team coordinator resolves only when the bound lane approver"} {
		if !strings.Contains(out, f) {
			t.Errorf("rendered matrix lacks footnote %q", f)
		}
	}
}

// expectedRow lists, per class, exactly the tools of its matrix row, written
// out by hand from the spec so that a change of the table fails here.
var expectedRow = map[registry.Profile][]string{
	registry.ProfileSecretary: {"workspace_list", "workspace_stat", "workspace_hash", "workspace_read", "workspace_write",
		"send_broker_message", "list_coordination_messages", "ack_coordination_message",
		"list_peers", "lookup_sender", "set_summary", "set_activity", "reconcile_wake", "query_graph_context",
		"list_decisions", "raise_decision", "resolve_decision", "list_tasks", "get_task", "report_task", "assign_task",
		"cancel_task_v1", "reassign_task_v1",
		"list_runs", "get_run", "read_artifact_v1",
		"send_human_message", "reply_human_message", "ack_human_message", "start_typing", "stop_typing",
		"list_reaction_ids", "apply_human_reaction", "send_human_card", "send_human_todo", "send_human_file",
		"get_human_surface_status", "publish_deployment_v1"},
	registry.ProfileProjectLead: {"workspace_list", "workspace_stat", "workspace_hash", "workspace_read", "workspace_write",
		"send_broker_message", "list_coordination_messages", "ack_coordination_message",
		"list_peers", "lookup_sender", "set_summary", "set_activity", "reconcile_wake", "query_graph_context",
		"list_decisions", "raise_decision", "resolve_decision", "list_tasks", "get_task", "report_task", "assign_task",
		"cancel_task_v1", "reassign_task_v1",
		"list_runs", "get_run", "create_run", "advance_run", "append_run_event", "record_artifact", "read_artifact_v1",
		"list_confirmations_v1", "decide_confirmation_v1", "get_human_surface_status", "publish_deployment_v1"},
	registry.ProfileCoderDeputy: {"workspace_list", "workspace_stat", "workspace_hash", "workspace_read", "workspace_write",
		"send_broker_message", "list_coordination_messages", "ack_coordination_message",
		"list_peers", "lookup_sender", "set_summary", "set_activity", "reconcile_wake", "query_graph_context",
		"list_decisions", "raise_decision", "list_tasks", "get_task", "report_task",
		"list_runs", "get_run", "create_run", "advance_run", "append_run_event", "record_artifact", "read_artifact_v1",
		"get_human_surface_status", "publish_deployment_v1"},
}

func init() {
	// The coordinator's row equals the secretary's in tools (W² vs W¹ differ in scope).
	expectedRow[registry.ProfileTeamCoordinator] = expectedRow[registry.ProfileSecretary]
}

func TestEveryClassGetsExactlyItsMatrixRow(t *testing.T) {
	for _, p := range registry.Profiles {
		s := mustBuild(t, seats[p])
		if got := toolNames(s.Tools); !slices.Equal(got, expectedRow[p]) {
			t.Errorf("%s\n got %v\nwant %v", p, got, expectedRow[p])
		}
	}
}

func TestCoderDeputyHasNoResolveAssignOrHumanMessaging(t *testing.T) {
	// "decisions: resolve ... -", "tasks: assign ... -", "human messages,
	// replies, ack, typing	W (bound surfaces)	W (bound surfaces)	-	-"
	s := mustBuild(t, "work/core/deputy")
	denied := []string{"resolve_decision", "assign_task", "send_human_message", "reply_human_message",
		"ack_human_message", "start_typing", "stop_typing", "list_reaction_ids", "apply_human_reaction",
		"send_human_card", "send_human_todo", "send_human_file"}
	for _, name := range denied {
		if slices.Contains(toolNames(s.Tools), name) {
			t.Errorf("coder-deputy carries %s", name)
		}
	}
	for _, tl := range s.Tools {
		if g, _ := LookupTool(tl.Name); g.Bundle == "runs and artifacts" && tl.Scope != ScopeAssignedTask {
			t.Errorf("deputy %s scope %s; spec: \"R/W (assigned task)\"", tl.Name, tl.Scope)
		}
	}
}

func TestEveryClassHasStatusWorkspaceAndTheStandardSurface(t *testing.T) {
	// "Every persona class receives: workspace listing, metadata, hash, and
	// paginated/ranged reads; atomic writes to the mutable paths ..."
	for _, p := range registry.Profiles {
		names := toolNames(ToolsFor(p))
		for _, must := range []string{"get_human_surface_status", "workspace_list", "workspace_stat", "workspace_hash", "workspace_read", "workspace_write"} {
			if !slices.Contains(names, must) {
				t.Errorf("%s lacks %s", p, must)
			}
		}
		for _, item := range standardSurface {
			for _, name := range item.Tools {
				if !slices.Contains(names, name) {
					t.Errorf("%s lacks %s of the standard surface %q", p, name, item.Text)
				}
			}
		}
	}
}

func TestPublicationIsConfirmForAllFour(t *testing.T) {
	// "deployment/publication	C	C	C	C" and "C means the tool is exposed but
	// requires confirmation".
	for _, p := range registry.Profiles {
		tl, ok := ExpectedTool(p, PublishTool)
		if !ok || tl.Access != AccessConfirm {
			t.Errorf("%s: %s exposed=%v access=%s, want confirm", p, PublishTool, ok, tl.Access)
		}
		for _, other := range ToolsFor(p) {
			if other.Name != PublishTool && other.Access != AccessAllow {
				t.Errorf("%s: %s has access %s; only the C row confirms", p, other.Name, other.Access)
			}
		}
	}
}

func TestRunsAreReadOnlyForSecretaryAndCoordinator(t *testing.T) {
	// "runs and artifacts	R	R	R/W	R/W (assigned task)"
	for _, p := range []registry.Profile{registry.ProfileSecretary, registry.ProfileTeamCoordinator} {
		for _, name := range []string{"create_run", "advance_run", "append_run_event", "record_artifact"} {
			if _, ok := ExpectedTool(p, name); ok {
				t.Errorf("%s may %s; its runs cell is R", p, name)
			}
		}
	}
	if tl, _ := ExpectedTool(registry.ProfileSecretary, "resolve_decision"); tl.Scope != ScopeRelayBoundHuman {
		t.Errorf("secretary resolve scope %s; footnote ¹ makes it a relay", tl.Scope)
	}
	if tl, _ := ExpectedTool(registry.ProfileTeamCoordinator, "resolve_decision"); tl.Scope != ScopeLaneApprover {
		t.Errorf("coordinator resolve scope %s; footnote ² binds the lane approver", tl.Scope)
	}
}

func TestSchemaScopeEnumIsTheVocabulary(t *testing.T) {
	var doc struct {
		Properties struct {
			Tools struct {
				Items struct {
					Properties struct {
						Scope struct{ Enum []string } `json:"scope"`
					} `json:"properties"`
				} `json:"items"`
			} `json:"tools"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(SchemaV3(), &doc); err != nil {
		t.Fatal(err)
	}
	if got := doc.Properties.Tools.Items.Properties.Scope.Enum; !slices.Equal(got, Scopes()) {
		t.Fatalf("schema scope enum %v, vocabulary %v", got, Scopes())
	}
}

func TestRequiredToolsAndHandlers(t *testing.T) {
	if n := len(requiredTools(registry.ProfileSecretary)); n != 34 {
		t.Errorf("secretary requires %d spec tools, want 34", n)
	}
	if slices.Contains(requiredTools(registry.ProfileCoderDeputy), PublishTool) {
		t.Error("the versioned publication tool is not one of the spec's required names")
	}
	if len(Handlers()) != len(inventory) {
		t.Errorf("handler table has %d actions for %d tools", len(Handlers()), len(inventory))
	}
}

// requiredTools is the names of the spec's required inventory the class
// must carry (its matrix row minus the factory's versioned additions), sorted.
func requiredTools(p registry.Profile) []string {
	var out []string
	for _, t := range ToolsFor(p) {
		if inv, _ := LookupTool(t.Name); !inv.Versioned {
			out = append(out, t.Name)
		}
	}
	sort.Strings(out)
	return out
}

// "The stamp may add versioned tools later, but cannot silently omit a
// required tool for its class": a stamp written before an optional
// versioned tool existed stays valid without it (a stamp is never
// rewritten), while one without a required tool is refused by name.
func TestOptionalVersionedToolsAreNotRequired(t *testing.T) {
	s := mustBuild(t, "work/core/lead")
	s.Tools = slices.DeleteFunc(s.Tools, func(t Tool) bool { return t.Name == CancelTaskTool || t.Name == ReassignTaskTool })
	if ps := Semantic(s); len(ps) != 0 {
		t.Fatalf("a lead's stamp without the optional versioned tools: %v", ps)
	}
	s.Tools = slices.DeleteFunc(s.Tools, func(t Tool) bool { return t.Name == "assign_task" })
	if ps := Semantic(s); len(ps) != 1 || ps[0].Rule != RuleMissingTool || ps[0].Tool != "assign_task" {
		t.Fatalf("a lead's stamp without assign_task: %v", ps)
	}
}
