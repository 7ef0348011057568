package stamp

import "github.com/virgo-hub/virgo-tui/internal/registry"

// This file is the one table of the spec's "Class matrix" and "Required tool
// inventory" (virgo-capability-surface.txt). The factory, the validator, the
// diff, the dossier, the matrix view and the tests all read it; nothing keeps
// a second hand-written list.

// Mark is one cell of the class matrix, in the spec's words: "R means
// read/use, W means mutate within stamped scope, C means the tool is exposed
// but requires confirmation for the described boundary, and - means it is not
// exposed."
type Mark string

// The five marks of the class matrix.
const (
	MarkRead      Mark = "R"
	MarkWrite     Mark = "W"
	MarkReadWrite Mark = "R/W"
	MarkConfirm   Mark = "C"
	MarkNone      Mark = "-"
)

// Cell is one class's entry for one bundle.
type Cell struct {
	Mark Mark
	// Note is the spec's footnote number (¹ ²), 0 for none.
	Note int
	// Qualifier is the spec's parenthesised limit: "bound surfaces",
	// "assigned task".
	Qualifier string
	// Scope, when set, overrides every tool's default scope for this class.
	Scope Scope
}

// InventoryTool is one tool of the required inventory (or a versioned
// addition) with the properties that do not vary by class.
type InventoryTool struct {
	Name          string
	HandlerAction string
	// Kind is what the tool does; Shapes, the shapes it may carry (its
	// kind's): the handler refuses any other shape for it.
	Kind   Kind
	Shapes []Shape
	// Reaches are the target kinds its operations address; its scope (a
	// class may narrow it) bounds which of those targets are the persona's.
	Reaches []Reach
	// Group is the spec's inventory heading ("workspace", "runs", ...).
	Group string
	// Scope is the default scope; a Cell may override it.
	Scope Scope
	// Versioned marks a tool the factory adds beyond the spec's 38 names.
	Versioned bool
	// Optional marks a versioned tool added after stamps were written
	// without it: the factory stamps it, and a stamp that lacks it is
	// still valid (a stamp is never rewritten), its persona without it.
	Optional bool
	// Bundle is the matrix row the tool belongs to (filled from the table).
	Bundle string
}

// Bundle is one row of the class matrix with the tools it resolves to.
type Bundle struct {
	// Name is the spec's "Capability bundle" column.
	Name string
	// Boundary is what a diff says is gained or lost with this bundle.
	Boundary string
	// Standard marks the spec's "standard ordinary surface every class
	// receives".
	Standard bool
	// Versioned marks a row the factory adds beyond the spec's matrix,
	// of versioned tools only ("the stamp may add versioned tools later").
	Versioned bool
	Cells     map[registry.Profile]Cell
	Tools     []InventoryTool
}

// Footnote is one of the matrix's numbered limits.
type Footnote struct {
	N    int
	Text string
}

// The versioned tools the factory adds beyond the spec's required names.
const (
	// PublishTool is the deployment/publication row's tool.
	PublishTool = "publish_deployment_v1"
	// CancelTaskTool and ReassignTaskTool are the assigner's side's
	// changes of a task ("tasks: assign"): work is never orphaned.
	CancelTaskTool   = "cancel_task_v1"
	ReassignTaskTool = "reassign_task_v1"
	// ReadArtifactTool reads an artifact's bytes, ranged, wherever the
	// run's scope reaches ("runs and artifacts"): evidence the lead reads.
	ReadArtifactTool = "read_artifact_v1"
	// ListConfirmationsTool and DecideConfirmationTool are the owning
	// lead's pair for the deputy-scope confirmations routed to it.
	ListConfirmationsTool  = "list_confirmations_v1"
	DecideConfirmationTool = "decide_confirmation_v1"
)

// versioned marks t a versioned addition, optional in stamps written
// before it.
func versioned(t InventoryTool) InventoryTool {
	t.Versioned, t.Optional = true, true
	return t
}

// row builds the cells of one matrix row in registry.Profiles order.
func row(secretary, coordinator, lead, deputy Cell) map[registry.Profile]Cell {
	return map[registry.Profile]Cell{
		registry.ProfileSecretary:       secretary,
		registry.ProfileTeamCoordinator: coordinator,
		registry.ProfileProjectLead:     lead,
		registry.ProfileCoderDeputy:     deputy,
	}
}

var (
	cellR    = Cell{Mark: MarkRead}
	cellW    = Cell{Mark: MarkWrite}
	cellRW   = Cell{Mark: MarkReadWrite}
	cellC    = Cell{Mark: MarkConfirm}
	cellNone = Cell{Mark: MarkNone}
)

func tool(group, name, action string, kind Kind, scope Scope, reaches ...Reach) InventoryTool {
	return InventoryTool{Name: name, HandlerAction: action, Kind: kind, Shapes: kind.Shapes(), Reaches: reaches,
		Group: group, Scope: scope}
}

// bundles is the class matrix, in the spec's row order.
var bundles = []Bundle{
	{Name: "standard workspace and coordination", Boundary: "workspace and coordination", Standard: true,
		Cells: row(cellRW, cellRW, cellRW, cellRW), Tools: []InventoryTool{
			tool("workspace", "workspace_list", "workspace.list", KindRead, ScopeOwnWorkspace, ReachPath),
			tool("workspace", "workspace_stat", "workspace.stat", KindRead, ScopeOwnWorkspace, ReachPath),
			tool("workspace", "workspace_hash", "workspace.hash", KindRead, ScopeOwnWorkspace, ReachPath),
			tool("workspace", "workspace_read", "workspace.read", KindRead, ScopeOwnWorkspace, ReachPath),
			tool("workspace", "workspace_write", "workspace.write", KindWrite, ScopeOwnWorkspace, ReachPath),
			tool("coordination", "send_broker_message", "coordination.send", KindMessage, ScopeOwn, ReachAddress),
			tool("coordination", "list_coordination_messages", "coordination.list", KindRead, ScopeOwn, ReachAddress),
			tool("coordination", "ack_coordination_message", "coordination.ack", KindRecord, ScopeOwn, ReachAddress),
		}},
	{Name: "peer verification and presence", Boundary: "presence", Standard: true,
		Cells: row(cellRW, cellRW, cellRW, cellRW), Tools: []InventoryTool{
			tool("identity/presence", "list_peers", "presence.list_peers", KindRead, ScopeDirectory, ReachAddress),
			tool("identity/presence", "lookup_sender", "presence.lookup_sender", KindRead, ScopeDirectory, ReachAddress),
			tool("identity/presence", "set_summary", "presence.set_summary", KindRecord, ScopeOwn, ReachAddress),
			tool("identity/presence", "set_activity", "presence.set_activity", KindRecord, ScopeOwn, ReachAddress),
			tool("identity/presence", "reconcile_wake", "presence.reconcile_wake", KindRecord, ScopeOwn, ReachAddress),
		}},
	{Name: "bounded graph context query", Boundary: "graph context", Standard: true,
		Cells: row(cellR, cellR, cellR, cellR), Tools: []InventoryTool{
			tool("knowledge", "query_graph_context", "graph.query_context", KindRead, ScopeGraphNamespace, ReachAddress),
		}},
	{Name: "decisions: list / raise", Boundary: "decision raising", Standard: true,
		Cells: row(cellRW, cellRW, cellRW, cellRW), Tools: []InventoryTool{
			tool("decisions", "list_decisions", "decision.list", KindRead, ScopeOwn, ReachAddress, ReachDecision),
			tool("decisions", "raise_decision", "decision.raise", KindRecord, ScopeOwn, ReachDecision),
		}},
	{Name: "decisions: resolve", Boundary: "decision resolution",
		Cells: row(Cell{Mark: MarkWrite, Note: 1, Scope: ScopeRelayBoundHuman},
			Cell{Mark: MarkWrite, Note: 2, Scope: ScopeLaneApprover}, cellW, cellNone),
		Tools: []InventoryTool{
			tool("decisions", "resolve_decision", "decision.resolve", KindRecord, ScopeSubtree, ReachDecision),
		}},
	{Name: "tasks: list / get / report", Boundary: "task reporting", Standard: true,
		Cells: row(cellRW, cellRW, cellRW, cellRW), Tools: []InventoryTool{
			tool("tasks", "list_tasks", "task.list", KindRead, ScopeOwn, ReachAddress, ReachTask),
			tool("tasks", "get_task", "task.get", KindRead, ScopeOwn, ReachTask),
			tool("tasks", "report_task", "task.report", KindRecord, ScopeOwn, ReachTask),
		}},
	{Name: "tasks: assign", Boundary: "task assignment",
		Cells: row(cellW, cellW, cellW, cellNone), Tools: []InventoryTool{
			tool("tasks", "assign_task", "task.assign", KindRecord, ScopeSubtree, ReachTask),
			versioned(tool("tasks", CancelTaskTool, "task.cancel.v1", KindRecord, ScopeSubtree, ReachTask)),
			versioned(tool("tasks", ReassignTaskTool, "task.reassign.v1", KindRecord, ScopeSubtree, ReachTask)),
		}},
	{Name: "runs and artifacts", Boundary: "runs and artifacts",
		Cells: row(cellR, cellR, cellRW, Cell{Mark: MarkReadWrite, Qualifier: "assigned task", Scope: ScopeAssignedTask}),
		Tools: []InventoryTool{
			tool("runs", "list_runs", "run.list", KindRead, ScopeSubtree, ReachTask, ReachRun),
			tool("runs", "get_run", "run.get", KindRead, ScopeSubtree, ReachRun),
			tool("runs", "create_run", "run.create", KindRecord, ScopeSubtree, ReachTask, ReachRun),
			tool("runs", "advance_run", "run.advance", KindRecord, ScopeSubtree, ReachRun),
			tool("runs", "append_run_event", "run.append_event", KindRecord, ScopeSubtree, ReachRun),
			tool("runs", "record_artifact", "artifact.record", KindRecord, ScopeSubtree, ReachRun),
			versioned(tool("runs", ReadArtifactTool, "artifact.read.v1", KindRead, ScopeSubtree, ReachRun)),
		}},
	// Versioned: "a deputy-scope confirmation goes to the owning lead",
	// which decides it as an agent, under every rule that binds a human
	// decider (never its own request, never a global boundary).
	{Name: "deputy-scope confirmations", Boundary: "deputy-scope confirmation decisions", Versioned: true,
		Cells: row(cellNone, cellNone, cellW, cellNone), Tools: []InventoryTool{
			versioned(tool("confirmations", ListConfirmationsTool, "confirmation.list.v1", KindRead, ScopeOwn, ReachAddress)),
			versioned(tool("confirmations", DecideConfirmationTool, "confirmation.decide.v1", KindRecord, ScopeOwn, ReachAddress)),
		}},
	{Name: "human messages, replies, ack, typing", Boundary: "human-surface messaging",
		Cells: row(Cell{Mark: MarkWrite, Qualifier: "bound surfaces"}, Cell{Mark: MarkWrite, Qualifier: "bound surfaces"}, cellNone, cellNone),
		Tools: []InventoryTool{
			tool("human surface", "send_human_message", "human.send_message", KindMessage, ScopeBoundSurfaces, ReachSurface),
			tool("human surface", "reply_human_message", "human.reply_message", KindMessage, ScopeBoundSurfaces, ReachSurface),
			tool("human surface", "ack_human_message", "human.ack_message", KindMessage, ScopeBoundSurfaces, ReachSurface),
			tool("human surface", "start_typing", "human.start_typing", KindMessage, ScopeBoundSurfaces, ReachSurface),
			tool("human surface", "stop_typing", "human.stop_typing", KindMessage, ScopeBoundSurfaces, ReachSurface),
		}},
	{Name: "reaction catalogue and apply", Boundary: "human-surface reactions",
		Cells: row(cellW, cellW, cellNone, cellNone), Tools: []InventoryTool{
			tool("human surface", "list_reaction_ids", "human.list_reactions", KindRead, ScopeBoundSurfaces, ReachSurface),
			tool("human surface", "apply_human_reaction", "human.apply_reaction", KindMessage, ScopeBoundSurfaces, ReachSurface),
		}},
	{Name: "cards, todo cards, file send", Boundary: "human-surface cards and files",
		Cells: row(cellW, cellW, cellNone, cellNone), Tools: []InventoryTool{
			tool("human surface", "send_human_card", "human.send_card", KindMessage, ScopeBoundSurfaces, ReachSurface),
			tool("human surface", "send_human_todo", "human.send_todo", KindMessage, ScopeBoundSurfaces, ReachSurface),
			tool("human surface", "send_human_file", "human.send_file", KindMessage, ScopeBoundSurfaces, ReachSurface),
		}},
	{Name: "human-surface/gateway status", Boundary: "gateway status",
		Cells: row(cellR, cellR, cellR, cellR), Tools: []InventoryTool{
			tool("human surface", "get_human_surface_status", "human.surface_status", KindRead, ScopeGateway, ReachSurface),
		}},
	{Name: "deployment/publication", Boundary: "publication",
		Cells: row(cellC, cellC, cellC, cellC), Tools: []InventoryTool{
			{Name: PublishTool, HandlerAction: "deployment.publish.v1", Kind: KindPublish, Shapes: KindPublish.Shapes(),
				Reaches: []Reach{ReachExternal},
				Group:   "deployment", Scope: ScopeExternal, Versioned: true},
		}},
}

// footnotes are the matrix's limits, quoted from the spec.
var footnotes = []Footnote{
	{N: 1, Text: "A secretary resolves a decision only as a durable relay of the bound human authority's explicit decision."},
	{N: 2, Text: "A team coordinator resolves only when the bound lane approver authorizes that decision. Neither class self-originates a resolution."},
}

// SurfaceItem is one line of the spec's "Standard ordinary surface" with the
// tools that realise it.
type SurfaceItem struct {
	Text  string
	Tools []string
}

// standardSurface is the spec's "Every persona class receives:" list. Items
// carried by something other than a tool (the delivery envelope, confinement)
// have no tools.
var standardSurface = []SurfaceItem{
	{Text: "workspace listing, metadata, hash, and paginated/ranged reads",
		Tools: []string{"workspace_list", "workspace_stat", "workspace_hash", "workspace_read"}},
	{Text: "atomic writes to the mutable paths declared in its own workspace binding",
		Tools: []string{"workspace_write"}},
	{Text: "coordination inbox list/ack, broker send, wake reconciliation, presence summary/activity, peer listing, and redacted sender lookup",
		Tools: []string{"list_coordination_messages", "ack_coordination_message", "send_broker_message", "reconcile_wake",
			"set_summary", "set_activity", "list_peers", "lookup_sender"}},
	{Text: "decision list/raise and task list/get/report for work it owns",
		Tools: []string{"list_decisions", "raise_decision", "list_tasks", "get_task", "report_task"}},
	{Text: "read-only bounded graph context queries", Tools: []string{"query_graph_context"}},
	{Text: "read-only access to the persona's own conversation-archive lineage through the graph query service",
		Tools: []string{"query_graph_context"}},
	{Text: "a delivery envelope containing registry-derived sender project, agent, peer id, and instance/fence provenance"},
}

// StandardMutablePaths are the workspace paths every normal persona may
// write: "For a normal persona this includes QUEUE.md, DECISIONS.md,
// FINDINGS.md, and memory/**".
var standardMutablePaths = []string{"QUEUE.md", "DECISIONS.md", "FINDINGS.md", "memory/**"}
