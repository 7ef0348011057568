package tools

import (
	"fmt"
	"slices"

	"github.com/virgo-hub/virgo-tui/internal/channel"
	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/decisions"
	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/tasks"
)

// This file is the one table of what a caller sends to each tool of the
// inventory (stamp.Inventory) and how it becomes the operation the handler
// decides: a description, the arguments (the source of the strict JSON
// Schema), the target and the shape. The hub's tool calls
// (usecase.CallTool), the MCP server's tools/list and docs/mcp.md read it.

// From says where an operation's target comes from.
type From uint8

// The sources of a target.
const (
	// FromArgument: the argument Field, normalized for the target's kind
	// (a workspace path, an address, an https URL); Default when absent.
	FromArgument From = iota + 1
	// FromCaller: the calling persona's own address (its inbox, its
	// presence, its lists).
	FromCaller
	// FromRecord: the stored record the argument Field names (a task, run
	// or decision id). Scope, project and task come from the record, never
	// from the arguments (confirm.Target).
	FromRecord
	// FromNewRecord: a record the call creates, with an id derived from
	// the caller and the correlation id (NewRecordID), so a retry names
	// the same record. It lies in In: the seat the argument Field names
	// (a task, in its assignee's project), the stored record Field names
	// (a run, in its task), or the caller's own scope and project.
	FromNewRecord
	// FromSurface: the human surface the argument Field names on
	// virgo-channel ("human:henry"), by default the stamp's bound human.
	FromSurface
)

// In is where a new record lies (FromNewRecord).
type In uint8

// The places of a new record.
const (
	// InCaller: the caller's own scope and project.
	InCaller In = iota
	// InSeat: the scope and project of the registered seat Field names.
	InSeat
	// InRecord: the stored record Field names (its scope, project, and as
	// the run's task, its id).
	InRecord
)

// Target is how a tool's arguments become its operation's target.
type Target struct {
	Kind confirm.TargetKind
	From From
	// Field is the argument the target (or its place, for FromNewRecord)
	// is read from.
	Field string
	In    In
	// Workspace names the argument selecting a path target's workspace.
	Workspace string
	// Default is a path target's value when Field is absent.
	Default string
}

// Tool is one row of the table.
type Tool struct {
	Name        string
	Description string
	// Params are the arguments besides correlation_id, which every tool
	// takes.
	Params []Param
	Target Target
	// Shape is the operation's shape; when ShapeArg is set, the argument
	// of that name chooses it through ShapeOf (its first entry's shape
	// when absent).
	Shape    stamp.Shape
	ShapeArg string
	ShapeOf  []Choice
	// Runtime marks a tool the persona's runtime carries out on its own
	// files or outside the installation (the MCP server): the hub decides
	// it and answers the allowed operation; it has no hub executor.
	Runtime bool
	// Idempotent marks a tool that, called again with the same
	// arguments, changes nothing more (MCP's idempotentHint): a read, an
	// acknowledgement, a setting, a write of the same content, a move or
	// resolution that the first call already made.
	Idempotent bool
	// OpenWorld marks a tool that reaches outside the installation (MCP's
	// openWorldHint); every other tool acts on the installation's own
	// records, files and bound humans.
	OpenWorld bool
	// Answers are the shapes of what the tool answers once carried out
	// (one per kind of answer), the source of its output schema
	// (OutputSchema).
	Answers []Result
}

// Choice is one value of a shape-choosing argument.
type Choice struct {
	Value string
	Shape stamp.Shape
}

// Workspace targets: a path in the persona's own workspace (or its bound
// repository, "workspace": "repository").
func workspaceTarget(def string) Target {
	return Target{Kind: confirm.TargetPath, From: FromArgument, Field: "path", Workspace: "workspace", Default: def}
}

var workspaceParam = Param{Name: "workspace", Type: TypeString, MaxLength: MaxPathLen, Pattern: `^[a-z0-9][a-z0-9/._-]*$`,
	Doc: "the workspace: absent for the persona's own, \"repository\" for its bound repository worktree"}

var (
	self        = Target{Kind: confirm.TargetAddress, From: FromCaller}
	surface     = Target{Kind: confirm.TargetSurface, From: FromSurface, Field: "to"}
	surfaceArg  = Param{Name: "to", Type: TypeString, MaxLength: MaxLine, Pattern: `^[A-Za-z0-9._:@-]+$`, Doc: "the human on virgo-channel (\"human:henry\"); absent: the persona's bound human"}
	taskRecord  = Target{Kind: confirm.TargetTask, From: FromRecord, Field: "task"}
	runRecord   = Target{Kind: confirm.TargetRun, From: FromRecord, Field: "run"}
	messageID   = id("message", "the message's id", true)
	paged       = page()
	stateFilter = enum("state", "only decisions in this state", false, "open", "resolved")
)

// table is the tool table, in inventory order.
var table = []Tool{
	// workspace: carried out by the persona's runtime on its own files.
	{Name: "workspace_list", Description: "List a directory of the persona's workspace, a page at a time.",
		Params: append([]Param{path("path", "the directory, relative to the workspace root; absent: the root", false), workspaceParam}, paged...),
		Target: workspaceTarget(WorkspaceRoot), Shape: stamp.ShapeReadMeta, Runtime: true, Idempotent: true,
		Answers: []Result{listing}},
	{Name: "workspace_stat", Description: "Size, mode and modification time of a workspace file.",
		Params: []Param{path("path", "the file, relative to the workspace root", true), workspaceParam},
		Target: workspaceTarget(""), Shape: stamp.ShapeReadMeta, Runtime: true, Idempotent: true,
		Answers: []Result{entry}},
	{Name: "workspace_hash", Description: "The sha256 of a workspace file.",
		Params: []Param{path("path", "the file, relative to the workspace root", true), workspaceParam},
		Target: workspaceTarget(""), Shape: stamp.ShapeReadMeta, Runtime: true, Idempotent: true,
		Answers: []Result{digest}},
	{Name: "workspace_read", Description: "Read a workspace file from a byte offset, at most length bytes; the answer says where the next read starts.",
		Params: []Param{path("path", "the file, relative to the workspace root", true), workspaceParam,
			integer("offset", "the first byte to read (default 0)", 0, 1<<40),
			integer("length", "at most this many bytes (default and most: 1 MiB)", 0, confirm.MaxReadLength)},
		Target: workspaceTarget(""), Shape: stamp.ShapeReadRange, Runtime: true, Idempotent: true,
		Answers: []Result{textPage, blobPage}},
	{Name: "workspace_write", Description: "Write a workspace file atomically (create or overwrite it) or delete it; only the stamp's mutable paths.",
		Params: []Param{path("path", "the file, relative to the workspace root", true), workspaceParam,
			enum("action", "create (the default), overwrite or delete", false, "create", "overwrite", "delete"),
			{Name: "content", Type: TypeContent, MaxLength: MaxContent, Doc: "the file's new content (create, overwrite)"}},
		Target: workspaceTarget(""), ShapeArg: "action",
		ShapeOf: []Choice{{"create", stamp.ShapeWriteCreate}, {"overwrite", stamp.ShapeWriteOverwrite}, {"delete", stamp.ShapeDelete}},
		Runtime: true, Idempotent: true,
		Answers: []Result{written, removed}},

	// coordination: addressed messages between personas.
	{Name: "send_broker_message", Description: "Send a message to another persona's seat; it is delivered to the seat's current holder until acknowledged.",
		Params: []Param{address("to", "the recipient's address (work/core/lead)", true), line("subject", "one line", false),
			text("body", "the message", MaxBodyText, true), id("reply_to", "the id of the message this answers", false)},
		Target: Target{Kind: confirm.TargetAddress, From: FromArgument, Field: "to"}, Shape: stamp.ShapeMessageSend,
		Answers: []Result{coordMessage}},
	{Name: "list_coordination_messages", Description: "List the messages delivered to this persona, a page at a time.",
		Params: append([]Param{enum("state", "unacked (the default) or all", false, "unacked", "all")}, paged...),
		Target: self, Shape: stamp.ShapeReadMeta, Idempotent: true,
		Answers: []Result{pageOf(coordMessage)}},
	{Name: "ack_coordination_message", Description: "Acknowledge a delivered message; acknowledging twice changes nothing.",
		Params: []Param{messageID}, Target: self, Shape: stamp.ShapeRecordWrite, Idempotent: true,
		Answers: []Result{messageAck}},

	// identity/presence
	{Name: "list_peers", Description: "List the installation's personas (the redacted directory), a page at a time.",
		Params: paged, Target: self, Shape: stamp.ShapeReadMeta, Idempotent: true,
		Answers: []Result{pageOf(peer)}},
	{Name: "lookup_sender", Description: "Look up a persona by address in the redacted directory.",
		Params: []Param{address("address", "the persona's address", true)},
		Target: Target{Kind: confirm.TargetAddress, From: FromArgument, Field: "address"}, Shape: stamp.ShapeReadMeta, Idempotent: true,
		Answers: []Result{peer}},
	{Name: "set_summary", Description: "Set this persona's one-line presence summary.",
		Params: []Param{{Name: "summary", Type: TypeString, Required: true, MaxLength: 1024, Doc: "one line"}},
		Target: self, Shape: stamp.ShapeRecordWrite, Idempotent: true,
		Answers: []Result{presence}},
	{Name: "set_activity", Description: "Set what this persona is doing now.",
		Params: []Param{{Name: "activity", Type: TypeString, Required: true, MaxLength: 1024, Doc: "one line"}},
		Target: self, Shape: stamp.ShapeRecordWrite, Idempotent: true,
		Answers: []Result{presence}},
	{Name: "reconcile_wake", Description: "After a wake, reconcile this persona's presence and learn what waited for it.",
		Target: self, Shape: stamp.ShapeRecordWrite,
		Answers: []Result{wake}},

	// knowledge
	{Name: "query_graph_context", Description: "Query the records of this persona's graph namespace (tasks, runs, artifacts, decisions, message metadata), a page at a time.",
		Params: append([]Param{line("query", "words to match", true),
			{Name: "kinds", Type: TypeStrings, MaxItems: 5, MaxLength: 16, Enum: []string{"task", "run", "artifact", "decision", "message"},
				Doc: "only these kinds of record"}}, paged...),
		Target: self, Shape: stamp.ShapeReadMeta, Idempotent: true,
		Answers: []Result{pageOf(graphNode)}},

	// decisions
	{Name: "list_decisions", Description: "List the decisions this persona raised or may resolve, a page at a time.",
		Params: append([]Param{stateFilter}, paged...), Target: self, Shape: stamp.ShapeReadMeta, Idempotent: true,
		Answers: []Result{pageOf(decision)}},
	{Name: "raise_decision", Description: "Raise a decision with a question, its options and context.",
		Params: []Param{line("question", "the question", true), atMost(lines("options", "the choices, at least two", 2, true), decisions.MaxOptions),
			text("context", "what the resolver needs to know", MaxBodyText, false)},
		Target: Target{Kind: confirm.TargetDecision, From: FromNewRecord, In: InCaller}, Shape: stamp.ShapeRecordWrite,
		Answers: []Result{decision}},
	{Name: "resolve_decision", Description: "Resolve a decision with one of its options.",
		Params: []Param{id("decision", "the decision's id", true), line("choice", "one of the decision's options", true),
			text("reason", "why", MaxNote, false)},
		Target: Target{Kind: confirm.TargetDecision, From: FromRecord, Field: "decision"}, Shape: stamp.ShapeRecordWrite, Idempotent: true,
		Answers: []Result{decision}},

	// tasks
	{Name: "list_tasks", Description: "List the tasks assigned to this persona or by it, a page at a time.",
		Params: append([]Param{enum("which", "assigned-to-me (the default) or assigned-by-me", false, "assigned-to-me", "assigned-by-me"),
			enum("state", "only tasks in this state", false, tasks.States...)}, paged...),
		Target: self, Shape: stamp.ShapeReadMeta, Idempotent: true,
		Answers: []Result{pageOf(task)}},
	{Name: "get_task", Description: "Read a task with its progress reports.",
		Params: []Param{id("task", "the task's id", true)}, Target: taskRecord, Shape: stamp.ShapeReadMeta, Idempotent: true,
		Answers: []Result{task}},
	{Name: "report_task", Description: "Report progress on a task, with evidence; a report may move its state.",
		Params: []Param{id("task", "the task's id", true), text("progress", "what was done", MaxNote, true),
			lines("evidence", "references: paths, run or artifact ids, links", 0, false),
			enum("state", "the task's new state", false, tasks.ReportStates...)},
		Target: taskRecord, Shape: stamp.ShapeRecordWrite,
		Answers: []Result{task}},
	{Name: "assign_task", Description: "Assign a bounded task to a persona under this one (a lead's deputy).",
		Params: []Param{address("assignee", "the assignee's address (work/core/deputy)", true), line("title", "one line", true),
			text("brief", "what to do", MaxBodyText, true), lines("bounds", "the limits the work stays within", 0, false)},
		Target: Target{Kind: confirm.TargetTask, From: FromNewRecord, In: InSeat, Field: "assignee"}, Shape: stamp.ShapeRecordWrite,
		Answers: []Result{task}},
	{Name: stamp.CancelTaskTool, Description: "Cancel a task (final), with the reason; its reports and runs stay and its assignee is told.",
		Params: []Param{id("task", "the task's id", true), text("reason", "why it is cancelled", MaxNote, true)},
		Target: taskRecord, Shape: stamp.ShapeRecordWrite,
		Answers: []Result{task}},
	{Name: stamp.ReassignTaskTool, Description: "Move a task to another seat of its project (this persona's own included), with the reason; its reports and runs stay and both seats are told.",
		Params: []Param{id("task", "the task's id", true), address("assignee", "the new assignee's address (work/core/lead)", true),
			text("reason", "why it moves", MaxNote, true)},
		Target: taskRecord, Shape: stamp.ShapeRecordWrite,
		Answers: []Result{task}},

	// runs and artifacts
	{Name: "list_runs", Description: "List the runs of a task, a page at a time.",
		Params: append([]Param{id("task", "the task's id", true)}, paged...), Target: taskRecord, Shape: stamp.ShapeReadMeta, Idempotent: true,
		Answers: []Result{pageOf(run)}},
	{Name: "get_run", Description: "Read a run with its events and artifacts.",
		Params: []Param{id("run", "the run's id", true)}, Target: runRecord, Shape: stamp.ShapeReadMeta, Idempotent: true,
		Answers: []Result{runView}},
	{Name: "create_run", Description: "Start a run of a task.",
		Params: []Param{id("task", "the task's id", true), line("title", "one line", false)},
		Target: Target{Kind: confirm.TargetRun, From: FromNewRecord, In: InRecord, Field: "task"}, Shape: stamp.ShapeRecordWrite,
		Answers: []Result{run}},
	{Name: "advance_run", Description: "Move a run to its next state; an illegal move is refused by name.",
		Params: []Param{id("run", "the run's id", true), id("state", "the new state", true), text("note", "why", MaxNote, false)},
		Target: runRecord, Shape: stamp.ShapeRecordWrite, Idempotent: true,
		Answers: []Result{run}},
	{Name: "append_run_event", Description: "Append an event to a run's log.",
		Params: []Param{id("run", "the run's id", true), id("kind", "what happened (progress, output, error ...)", false),
			text("text", "the event", MaxNote, true)},
		Target: runRecord, Shape: stamp.ShapeRecordWrite,
		Answers: []Result{runEvent}},
	{Name: "record_artifact", Description: "Record a file of this persona's workspace as an artifact of a run; the hub reads the file and records its size and sha256 itself (a missing file is refused).",
		Params: []Param{id("run", "the run's id", true), line("name", "the artifact's name, unique in the run", true),
			path("path", "the file, relative to the workspace root", true)},
		Target: runRecord, Shape: stamp.ShapeRecordWrite,
		Answers: []Result{artifact}},
	{Name: stamp.ReadArtifactTool, Description: "Read an artifact of a run from a byte offset, at most length bytes, from the workspace of the persona that recorded it; the answer says where the next read starts.",
		Params: []Param{id("run", "the run's id", true), line("name", "the artifact's name", true),
			integer("offset", "the first byte to read (default 0)", 0, 1<<40),
			integer("length", "at most this many bytes (default and most: 1 MiB)", 0, confirm.MaxReadLength)},
		Target: runRecord, Shape: stamp.ShapeReadRange, Idempotent: true,
		Answers: []Result{artifactPage}},

	// deputy-scope confirmations, decided by the owning lead as an agent
	{Name: stamp.ListConfirmationsTool, Description: "List the pending confirmations routed to this persona (its deputies' operations outside their assigned tasks), oldest first, each with the bound operation in full.",
		Params: []Param{integer("limit", fmt.Sprintf("at most this many (default %d, most %d)", paging.DefaultLimit, paging.MaxLimit), 1, paging.MaxLimit)},
		Target: self, Shape: stamp.ShapeReadMeta, Idempotent: true,
		Answers: []Result{routed}},
	{Name: stamp.DecideConfirmationTool, Description: "Approve or deny a confirmation routed to this persona, with the reason; never its own request, never a global boundary (those are the bound human's).",
		Params: []Param{id("confirmation", "the confirmation's id, as list_confirmations_v1 shows it", true),
			enum("decision", "approve or deny", true, "approve", "deny"), text("reason", "why", MaxNote, true)},
		Target: self, Shape: stamp.ShapeRecordWrite,
		Answers: []Result{confirmation}},

	// human surface, through virgo-channel to the bound human
	{Name: "send_human_message", Description: "Send the bound human a message.",
		Params: []Param{surfaceArg, text("text", "the message", MaxBodyText, true), id("thread", "the thread it belongs to", false)},
		Target: surface, Shape: stamp.ShapeMessageSend,
		Answers: []Result{humanItem}},
	{Name: "reply_human_message", Description: "Reply to a message of the bound human.",
		Params: []Param{surfaceArg, messageID, text("text", "the reply", MaxBodyText, true)}, Target: surface, Shape: stamp.ShapeMessageSend,
		Answers: []Result{humanItem}},
	{Name: "ack_human_message", Description: "Acknowledge a message of the bound human.",
		Params: []Param{surfaceArg, messageID}, Target: surface, Shape: stamp.ShapeMessageSend, Idempotent: true,
		Answers: []Result{humanItem}},
	{Name: "start_typing", Description: "Show the bound human that this persona is typing.",
		Params: []Param{surfaceArg, id("thread", "the thread", false)}, Target: surface, Shape: stamp.ShapeMessageSend, Idempotent: true,
		Answers: []Result{typing}},
	{Name: "stop_typing", Description: "Stop showing that this persona is typing.",
		Params: []Param{surfaceArg, id("thread", "the thread", false)}, Target: surface, Shape: stamp.ShapeMessageSend, Idempotent: true,
		Answers: []Result{typing}},
	{Name: "list_reaction_ids", Description: "List the reactions the surface accepts.",
		Params: []Param{surfaceArg}, Target: surface, Shape: stamp.ShapeReadMeta, Idempotent: true,
		Answers: []Result{reactionIDs}},
	{Name: "apply_human_reaction", Description: "React to a message; the answer is applied: true, or applied: false with a reason.",
		Params: []Param{surfaceArg, messageID, id("reaction", "one of list_reaction_ids", true)}, Target: surface, Shape: stamp.ShapeMessageSend,
		Answers: []Result{outcome}},
	{Name: "send_human_card", Description: "Send the bound human a card with a title, a body and actions.",
		Params: []Param{surfaceArg, line("title", "one line", true), text("body", "the card's text", MaxBodyText, false),
			atMost(lines("actions", "the buttons offered", 0, false), channel.MaxActions)},
		Target: surface, Shape: stamp.ShapeMessageSend,
		Answers: []Result{humanItem}},
	{Name: "send_human_todo", Description: "Send the bound human a todo card.",
		Params: []Param{surfaceArg, line("title", "one line", true), lines("items", "the todo items", 1, true)},
		Target: surface, Shape: stamp.ShapeMessageSend,
		Answers: []Result{humanItem}},
	{Name: "send_human_file", Description: "Send the bound human a file from the persona's workspace (size-limited, with its sha256).",
		Params: []Param{surfaceArg, path("path", "the file, relative to the workspace root", true), line("caption", "one line", false)},
		Target: surface, Shape: stamp.ShapeMessageSend,
		Answers: []Result{humanItem}},
	{Name: "get_human_surface_status", Description: "Health of the human-surface gateway (no content).",
		Params: []Param{surfaceArg}, Target: surface, Shape: stamp.ShapeReadMeta, Idempotent: true,
		Answers: []Result{surfaceStatus}},

	// deployment/publication: carried out by the runtime once confirmed.
	{Name: stamp.PublishTool, Description: "Publish or deploy outside the installation; always confirmed by the bound human.",
		Params: []Param{{Name: "destination", Type: TypeString, Required: true, MaxLength: MaxPathLen, Pattern: `^https://`,
			Doc: "the https URL published to"},
			enum("action", "publish (the default) or deploy", false, "publish", "deploy"),
			text("description", "what is published", MaxNote, false)},
		Target: Target{Kind: confirm.TargetExternal, From: FromArgument, Field: "destination"}, ShapeArg: "action",
		ShapeOf: []Choice{{"publish", stamp.ShapePublishExternal}, {"deploy", stamp.ShapeDeploy}}, Runtime: true, OpenWorld: true,
		Answers: []Result{published}},
}

// WorkspaceRoot is the target of a listing of the workspace root: the one
// path target normalization does not produce (it refuses a path naming the
// root, as a write there is never meant).
const WorkspaceRoot = "."

// Hints are what a tool says it is to a client (MCP's tool annotations).
type Hints struct {
	// ReadOnly: every shape the tool can carry is a read.
	ReadOnly bool
	// Destructive: some shape it can carry replaces or removes what was
	// there (an overwrite, a delete, a deployment).
	Destructive bool
	// Idempotent and OpenWorld are the row's (Tool.Idempotent, OpenWorld).
	Idempotent, OpenWorld bool
}

// destructiveShapes are the shapes that replace or remove: the rest add.
var destructiveShapes = []stamp.Shape{stamp.ShapeWriteOverwrite, stamp.ShapeDelete, stamp.ShapeDeploy,
	stamp.ShapePermissionChange, stamp.ShapeCredentialChange}

// Hints derives the tool's hints from its shapes and its row: read-only
// and destructive from the shapes it can carry, so a new shape choice
// cannot leave them stale.
func (t Tool) Hints() Hints {
	shapes := []stamp.Shape{t.Shape}
	if t.ShapeArg != "" {
		shapes = shapes[:0]
		for _, c := range t.ShapeOf {
			shapes = append(shapes, c.Shape)
		}
	}
	h := Hints{ReadOnly: true, Idempotent: t.Idempotent, OpenWorld: t.OpenWorld}
	for _, s := range shapes {
		if s != stamp.ShapeReadMeta && s != stamp.ShapeReadRange {
			h.ReadOnly = false
		}
		if slices.Contains(destructiveShapes, s) {
			h.Destructive = true
		}
	}
	return h
}
