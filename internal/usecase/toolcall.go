package usecase

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/confirm/queue"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
	"github.com/virgo-hub/virgo-tui/internal/tools"
	"github.com/virgo-hub/virgo-tui/internal/workspace"
)

// ToolRequest is one tool call as a transport decoded it.
type ToolRequest struct {
	// Persona is whose stamp applies: ignored for a persona caller (its
	// own), required of an operator acting for a persona.
	Persona string
	Tool    string
	// Args are the tool's arguments, a JSON object (tools.Tool.Validate).
	Args json.RawMessage
	// CorrelationID names the call for its retries; when empty, the
	// arguments' correlation_id, else one is made and answered.
	CorrelationID string
}

// Call is what an executor is given: the call, decided and allowed.
type Call struct {
	// Persona is the generation the call is made as, under Stamp.
	Persona registry.Persona
	Stamp   *stamp.Stamp
	// Actor is who made the call: the persona itself, or an operator
	// acting for it.
	Actor     confirm.Principal
	Args      tools.Args
	Operation confirm.Operation
	// Decision is how Authorize decided the call, and ConfirmationID the
	// approved confirmation it was carried out on ("" when it was allowed
	// without one): a relayed resolution records its authority from it.
	Decision       confirm.Decision
	ConfirmationID string
	CorrelationID  string
	Now            time.Time
	// Fence is the instance fence the persona's runtime presented.
	Fence coord.Fence
}

// Executor carries out an allowed call of one tool: it reads what it
// needs and returns its answer and the plan of its writes (empty for a
// read). CallTool joins the plan with the call's audit entry and its
// exactly-once record and commits the one transaction; a conflict runs
// the executor again.
type Executor func(ctx context.Context, u *Cases, c Call) (result any, plan store.Plan, err error)

// ErrNoExecutor: a hub tool no executor is registered for (a tool whose
// records are not built yet); the call is decided but not carried out.
var ErrNoExecutor = errors.New("the hub has no executor for this tool yet")

// executors is the executor table: tool name → executor, one row per
// hub tool (the runtime's tools have none). Each record package adds its
// rows here.
var executors = map[string]Executor{
	"assign_task": assignTask,
	"list_tasks":  listTasks,
	"get_task":    getTask,
	"report_task": reportTask,

	"cancel_task_v1":   cancelTask,
	"reassign_task_v1": reassignTask,

	"create_run":       createRun,
	"advance_run":      advanceRun,
	"append_run_event": appendRunEvent,
	"record_artifact":  recordArtifact,
	"read_artifact_v1": readArtifact,

	"list_confirmations_v1":  listConfirmations,
	"decide_confirmation_v1": decideConfirmation,
	"list_runs":              listRuns,
	"get_run":                getRun,

	"raise_decision":   raiseDecision,
	"resolve_decision": resolveDecision,
	"list_decisions":   listDecisions,

	"list_peers":     listPeers,
	"lookup_sender":  lookupSender,
	"set_summary":    setSummary,
	"set_activity":   setActivity,
	"reconcile_wake": reconcileWake,

	"query_graph_context": queryGraphContext,

	"send_broker_message":        sendBrokerMessage,
	"list_coordination_messages": listCoordinationMessages,
	"ack_coordination_message":   ackCoordinationMessage,

	"send_human_message":       sendHumanMessage,
	"reply_human_message":      replyHumanMessage,
	"ack_human_message":        ackHumanMessage,
	"start_typing":             startTyping,
	"stop_typing":              stopTyping,
	"send_human_card":          sendHumanCard,
	"send_human_todo":          sendHumanTodo,
	"send_human_file":          sendHumanFile,
	"list_reaction_ids":        listReactionIDs,
	"apply_human_reaction":     applyHumanReaction,
	"get_human_surface_status": getHumanSurfaceStatus,
}

// correlationPrefix keeps a call's exactly-once record apart from a
// client's Idempotency-Key of the same caller.
const correlationPrefix = "tool-call:"

// CallTool is one persona tool call: the arguments validated against the
// tool's schema (tools table), mapped to the normalized operation (a
// record's scope and project read from the stored record), decided under
// the persona's stamp, and then
//
//   - allow: a hub tool's executor runs, and its writes, the call's audit
//     entry and its result commit as one transaction, guarded on the
//     persona's record as read; a runtime tool is answered "allowed" with
//     the normalized operation, for the runtime to carry out;
//   - confirm: a confirmation is queued (or joined) and the answer is
//     "confirm" with its id; the caller retries with the same correlation
//     id, and once it is approved the call is carried out exactly once
//     (its result is recorded under the correlation id in the same
//     transaction, and a later retry is answered from that record);
//   - deny: "denied" with the boundary and the reason.
//
// A malformed argument is tools.ErrInvalidArguments; a target
// normalization refuses as an escape is decided (a deny on the
// cross-scope boundary). With a Key, a call that wrote something is
// answered again from its record.
func (u *Cases) CallTool(ctx context.Context, k Key, caller Caller, req ToolRequest) (tools.ToolCall, error) {
	row, err := tools.Lookup(req.Tool)
	if err != nil {
		return tools.ToolCall{}, err
	}
	args, err := row.Validate(req.Args)
	if err != nil {
		return tools.ToolCall{}, err
	}
	corr, err := correlationOf(req, args)
	if err != nil {
		return tools.ToolCall{}, err
	}
	// The call's record names the caller and, for an operator, the
	// persona it acts for: one id used for two personas is two calls.
	once, err := NewKey(correlationPrefix+caller.Principal.String(), corr, []byte(req.Persona), []byte(row.Name), args.Canonical())
	if err != nil {
		return tools.ToolCall{}, fmt.Errorf("correlation id: %w", err)
	}
	var out tools.ToolCall
	err = u.commit(ctx, UseCallTool, "call "+row.Name, func() (store.Plan, error) {
		for _, key := range []Key{k, once} {
			if ok, err := u.replayed(ctx, key, &out); ok || err != nil {
				if errors.Is(err, ErrIdempotencyKeyReused) && key == once {
					err = fmt.Errorf("correlation id %s: %w", corr, confirm.ErrCorrelationReuse)
				}
				return store.Plan{}, err
			}
		}
		var plan store.Plan
		var err error
		out, plan, err = u.planCall(ctx, caller, req, row, args, corr)
		if err != nil {
			return store.Plan{}, err
		}
		if carriesOut(row, out, plan) {
			rec, err := u.recordCarried(once, &out)
			if err != nil {
				return store.Plan{}, err
			}
			plan.Join(rec)
		}
		if plan.Empty() {
			return store.Plan{}, nil
		}
		rec, err := u.record(k, out)
		plan.Join(rec)
		return plan, err
	})
	return out, err
}

// carriesOut reports whether the planned call carries an operation out:
// a hub tool's write, or a runtime tool that changes something (a
// workspace write, a publication) handed to the runtime. A read is not
// recorded: reading again changes nothing.
func carriesOut(row tools.Tool, out tools.ToolCall, plan store.Plan) bool {
	switch out.Status {
	case tools.ToolDone:
		return !plan.Empty()
	case tools.ToolAllowed:
		inv, known := stamp.LookupTool(row.Name)
		return !known || inv.Kind.Mutates()
	}
	return false
}

// recordCarried plans the record of a call carried out (stamping out with
// the time): under its correlation id (once), and, when it was carried out
// on an approved confirmation, beside that confirmation for as long as it
// is kept (queue.PlanCarried). A retry is answered from either record:
// a hub tool's with its "done" and result, a runtime tool's as carried.
func (u *Cases) recordCarried(once Key, out *tools.ToolCall) (store.Plan, error) {
	now := u.now().UTC()
	out.CarriedAt = &now
	recorded := *out
	if recorded.Status == tools.ToolAllowed {
		recorded.Status = tools.ToolCarried
	}
	plan, err := u.record(once, recorded)
	if err != nil || out.ConfirmationID == "" {
		return plan, err
	}
	b, err := json.Marshal(recorded)
	if err != nil {
		return store.Plan{}, fmt.Errorf("%s: record what was carried out: %w", out.Tool, err)
	}
	plan.Join(queue.PlanCarried(out.ConfirmationID, b))
	return plan, nil
}

// correlationOf is the call's correlation id: the request's, the
// arguments', or a new one; two that differ are refused.
func correlationOf(req ToolRequest, args tools.Args) (string, error) {
	corr, inArgs := req.CorrelationID, args.Str("correlation_id")
	switch {
	case corr != "" && inArgs != "" && corr != inArgs:
		return "", fmt.Errorf("%w: correlation_id %q in the arguments, %q in the request", tools.ErrInvalidArguments, inArgs, corr)
	case corr == "":
		corr = inArgs
	}
	if corr == "" {
		b := make([]byte, 8)
		_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
		return "call-" + hex.EncodeToString(b), nil
	}
	if _, err := confirm.NormalizeID(corr); err != nil {
		return "", fmt.Errorf("%w: correlation id: %v", tools.ErrInvalidArguments, err)
	}
	return corr, nil
}

// planCall resolves, maps, decides and (when allowed) plans one call.
func (u *Cases) planCall(ctx context.Context, caller Caller, req ToolRequest, row tools.Tool, args tools.Args, corr string) (tools.ToolCall, store.Plan, error) {
	out := tools.ToolCall{Tool: row.Name, CorrelationID: corr}
	p, guards, err := u.acting(ctx, caller, req.Persona)
	if err != nil {
		return out, store.Plan{}, err
	}
	pol, err := u.Policy(ctx, p)
	if err != nil {
		return out, store.Plan{}, err
	}
	addr, err := registry.ParseAddress(p.Address)
	if err != nil {
		return out, store.Plan{}, err
	}
	st := pol.Stamp()
	action, _ := pol.Tool(row.Name) // a tool not on the stamp is denied "not exposed"
	out.Operation = confirm.Operation{Persona: p.Address, Generation: p.Generation, Tool: row.Name, HandlerAction: action}
	var target confirm.Target
	target, out.Operation.Shape, err = row.Operation(ctx, tools.Caller{PersonaID: p.ID, Address: addr, Human: st.Authority.Human},
		args, corr, records{u})
	if err == nil {
		var d confirm.Decision
		if d, err = u.exported(p, row, args); err == nil && d.Verdict == confirm.Deny {
			out.Operation.Target = target
			out.Status, out.Decision = tools.ToolDenied, d
			return out, store.Plan{}, nil
		}
	}
	switch {
	case err != nil && confirm.MalformedTarget(err):
		return out, store.Plan{}, fmt.Errorf("%s: %w: %v", row.Name, tools.ErrInvalidArguments, err)
	case err != nil && isTargetRefusal(err):
		out.Status, out.Decision = tools.ToolDenied, confirm.TargetRefusal(err)
		return out, store.Plan{}, nil
	case err != nil:
		return out, store.Plan{}, err
	}
	out.Operation.Target = target
	out.Operation.Arguments = row.Bound(args)
	res, plan, err := u.queue.PlanRequest(ctx, caller.Principal, pol, out.Operation, corr)
	if err != nil {
		return out, store.Plan{}, err
	}
	out.Decision = res.Decision
	if res.Confirmation != nil {
		out.ConfirmationID = res.Confirmation.ID
	}
	if res.Status == confirm.StatusAllowed && res.Confirmation != nil {
		// An approved confirmation allows its operation once: after that,
		// whoever reaches it again is told what was done.
		if b, ok, err := u.queue.Carried(ctx, res.Confirmation.ID); err != nil || ok {
			if err != nil {
				return out, store.Plan{}, err
			}
			var done tools.ToolCall
			if err := strictjson.DecodeOpen(b, &done); err != nil {
				return out, store.Plan{}, fmt.Errorf("confirmation %s: what was carried out: %w: %v", res.Confirmation.ID, store.ErrCorrupt, err)
			}
			return done, store.Plan{}, nil
		}
	}
	switch res.Status {
	case confirm.StatusDenied:
		out.Status = tools.ToolDenied
		return out, store.Plan{}, nil
	case confirm.StatusUnknown:
		out.Status = tools.ToolConfirm
		if plan.Empty() {
			return out, plan, nil // joined: its authority was told when it was queued
		}
		plan.Conds = append(plan.Conds, guards...)
		from, err := u.envelope(ctx, p, caller.Fence)
		if err != nil {
			return out, store.Plan{}, err
		}
		tell, err := u.planRoutedNotice(ctx, from, res.Confirmation)
		plan.Join(tell)
		return out, plan, err
	}
	if row.Runtime {
		out.Status = tools.ToolAllowed
		return out, store.Plan{}, nil
	}
	return u.execute(ctx, out, Call{Persona: p, Stamp: st, Actor: caller.Principal, Args: args, Operation: out.Operation,
		Decision: out.Decision, ConfirmationID: out.ConfirmationID, CorrelationID: corr, Now: u.now().UTC(), Fence: caller.Fence}, guards)
}

// exported decides the files a call lets leave the persona's workspace
// (tools.Tool.Exports: a file sent to the human, an artifact's path). Each
// is resolved on disk in the persona's workspace as the hub keeps it, so
// that a link is judged by the file it reaches, and judged by the one
// material table (confirm.Egress); with no workspace in this home the path
// is judged as named. The first denial is the call's decision; a path that
// normalization refuses is returned as its error, like a target's.
func (u *Cases) exported(p registry.Persona, row tools.Tool, args tools.Args) (confirm.Decision, error) {
	dir := workspace.HomeDir(u.home.Dir, p.Address)
	_, noDir := os.Stat(dir)
	for _, name := range row.Exports() {
		v := args.Str(name)
		if v == "" {
			continue
		}
		var rel string
		var err error
		if noDir != nil {
			rel, err = confirm.NormalizePath(v)
		} else {
			rel, err = confirm.NormalizePathOnDisk(dir, v)
		}
		if err != nil {
			return confirm.Decision{}, fmt.Errorf("argument %q: %w", name, err)
		}
		if d := confirm.Egress(rel); d.Verdict == confirm.Deny {
			return d, nil
		}
	}
	return confirm.Decision{Verdict: confirm.Allow}, nil
}

// isTargetRefusal reports whether a mapping error is a target's escape
// (a well-formed target normalization refused), which is decided, not
// answered as an error.
func isTargetRefusal(err error) bool {
	for _, e := range []error{confirm.ErrDotDot, confirm.ErrAbsolutePath, confirm.ErrBackslash, confirm.ErrPercentEncoded,
		confirm.ErrNonASCII, confirm.ErrUpperCase, confirm.ErrSymlinkEscape} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// execute runs an allowed call's executor and joins its writes with the
// call's audit entry and the guards of the caller (acting).
func (u *Cases) execute(ctx context.Context, out tools.ToolCall, c Call, guards []store.Cond) (tools.ToolCall, store.Plan, error) {
	run, ok := executors[out.Tool]
	if !ok {
		return out, store.Plan{}, fmt.Errorf("%s: %w", out.Tool, ErrNoExecutor)
	}
	result, plan, err := run(ctx, u, c)
	if err != nil {
		return out, store.Plan{}, err
	}
	if out.Result, err = json.Marshal(result); err != nil {
		return out, store.Plan{}, fmt.Errorf("%s: encode its answer: %w", out.Tool, err)
	}
	out.Status = tools.ToolDone
	if plan.Empty() {
		return out, plan, nil
	}
	audit, err := queue.AuditOp(confirm.AuditEntry{Time: c.Now, Event: "tool-call", ConfirmationID: out.ConfirmationID,
		CorrelationID: out.CorrelationID, Actor: c.Actor, Persona: c.Persona.Address, Operation: c.Operation.String(),
		Boundary: out.Decision.Boundary, StampHash: c.Persona.StampHash})
	if err != nil {
		return out, store.Plan{}, err
	}
	plan.Ops = append(plan.Ops, audit)
	plan.Conds = append(plan.Conds, guards...)
	return out, plan, nil
}

// acting resolves the active generation a call is made as: a persona
// caller's own, or the one an operator names; and the conditions that hold
// while its record is as read and, for a persona's call, while the
// calling instance holds its generation's latest fence — checked here for
// every call, a read included, so that a stale duplicate acts on nothing
// (coord.ErrFenced), and joined to a write, so that a newer instance's
// claim committed meanwhile refuses it too.
func (u *Cases) acting(ctx context.Context, caller Caller, ref string) (registry.Persona, []store.Cond, error) {
	var p registry.Persona
	var guard store.Cond
	var err error
	switch {
	case caller.IsPersona():
		p, guard, err = u.reg.GetGuarded(ctx, caller.PersonaID)
	case ref == "":
		return p, nil, fmt.Errorf("an operator acts for a persona: send \"persona\" (an address, name or id): %w", ErrPersonaRequired)
	default:
		p, guard, err = u.guarded(ctx, ref)
	}
	if err != nil {
		return p, nil, err
	}
	if p.State != registry.StateActive {
		return p, nil, fmt.Errorf("%s (%s) is %s: %w", p.Address, p.Name, p.State, ErrForbidden)
	}
	if !caller.IsPersona() {
		return p, []store.Cond{guard}, nil
	}
	fence, err := u.coord.Check(ctx, p.ID, caller.Fence)
	if err != nil {
		return p, nil, fmt.Errorf("%s (%s): %w", p.Address, p.Name, err)
	}
	return p, []store.Cond{guard, fence}, nil
}
