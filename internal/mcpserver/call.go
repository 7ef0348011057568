package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
	"github.com/virgo-hub/virgo-tui/internal/tools"
	"github.com/virgo-hub/virgo-tui/internal/workspace"
)

// Answer is the structured result of a call still waiting for its
// confirmation (a denial is a Failure; a result that was carried out is
// the executor's own).
type Answer struct {
	// Status is "unknown": the confirmation is still pending; call again
	// with the same correlation_id to join it.
	Status        confirm.Status `json:"status"`
	CorrelationID string         `json:"correlation_id"`
	Confirmation  string         `json:"confirmation,omitempty"`
	// Authority is who decides a pending confirmation.
	Authority string `json:"authority,omitempty"`
	// Boundary and Reason say why a call was denied or needs confirming.
	Boundary string `json:"boundary,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// waitingAnswer is Answer's shape, one of every tool's answers in its
// output schema (tools.Tool.OutputSchema): any call may need a
// confirmation. Its status is "unknown": not decided yet.
var waitingAnswer = tools.Result{
	{Name: "status", Kind: tools.KindString, Values: []string{string(confirm.StatusUnknown)}},
	{Name: "correlation_id", Kind: tools.KindString},
	{Name: "confirmation", Kind: tools.KindString, Optional: true},
	{Name: "authority", Kind: tools.KindString, Optional: true},
	{Name: "boundary", Kind: tools.KindString, Optional: true},
	{Name: "reason", Kind: tools.KindString, Optional: true},
}

// newCorrelation names a call that came without a correlation_id: unique
// to the call, so that two calls never share a decision; the answer
// carries it, so a retry can join.
func newCorrelation() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "mcp-" + hex.EncodeToString(b[:])
}

// callTool runs one tool call of session s: validate the arguments against
// the tool's schema, let the hub decide (and carry out a hub tool) through
// its tool call, wait for a confirmation if one is needed, and carry out a
// runtime tool here once allowed.
func (r *Runtime) callTool(ctx context.Context, s *session, req *mcp.CallToolRequest, row tools.Tool) *mcp.CallToolResult {
	if err := r.stopped(); err != nil {
		return toolError(err)
	}
	raw := req.Params.Arguments
	args, err := row.Validate(raw)
	if err != nil {
		return toolError(err)
	}
	corr := args.Str("correlation_id")
	if corr == "" {
		corr = newCorrelation()
	}
	s.activity(row.Name)
	defer s.idle()
	c := call{args: args}
	if row.Runtime {
		// A path is resolved on disk before the hub decides, and the hub
		// is asked about the file the operation really reaches.
		if c.root, raw, err = r.resolveArgs(ctx, row, args, raw, corr); err != nil {
			return toolError(err)
		}
	}
	tc, answer := r.decide(ctx, s, req, row.Name, raw, corr)
	if answer != nil {
		return answer
	}
	if !row.Runtime {
		if row.Name == setActivityTool {
			s.declare(args.Str("activity"))
		}
		return resultJSON(tc.Result)
	}
	c.target, c.shape, c.confirmation = tc.Operation.Target, tc.Operation.Shape, tc.ConfirmationID
	if c.target.Kind == confirm.TargetPath && c.root == nil {
		return toolError(fmt.Errorf("workspace %q: %w", c.target.Workspace, ErrNoRepository))
	}
	out, err := executors[row.Name].run(c)
	if err != nil {
		return toolError(err)
	}
	if b, ok := out.(blobPage); ok {
		return b.toolResult()
	}
	return result(out)
}

// setActivityTool sets the persona's own activity: it stays after the
// call that set it ends, where a call's own name is reported only while
// the call runs (session.idle).
const setActivityTool = "set_activity"

// resolveArgs maps a runtime tool's arguments to its target and, for a
// path, picks the tree it lies in and resolves the path on disk (a link
// inside the workspace to .env is .env); the arguments sent to the hub
// then name the resolved path.
func (r *Runtime) resolveArgs(ctx context.Context, row tools.Tool, args tools.Args, raw json.RawMessage, corr string) (*workspace.Root, json.RawMessage, error) {
	target, _, err := row.Operation(ctx, r.caller(), args, corr, nil) // runtime tools map from their arguments alone
	if err != nil || target.Kind != confirm.TargetPath {
		// A target that does not normalize is the hub's to answer: a
		// malformed one is invalid_arguments, an escape a denial on its
		// boundary, as for any other tool.
		return nil, raw, nil
	}
	var root *workspace.Root
	switch target.Workspace {
	case "":
		root = r.own
	case confirm.WorkspaceRepository:
		if r.repo == nil {
			return nil, nil, fmt.Errorf("workspace %q: %w", target.Workspace, ErrNoRepository)
		}
		root = r.repo
	default:
		return nil, raw, nil // another workspace: the hub denies it
	}
	if target.Value == tools.WorkspaceRoot {
		return root, raw, nil
	}
	rel, err := root.Resolve(target.Value)
	if err != nil {
		return nil, nil, err
	}
	if rel == target.Value {
		return root, raw, nil
	}
	var m map[string]any
	if err := strictjson.DecodeOpen(raw, &m); err != nil {
		return nil, nil, fmt.Errorf("%s: %w: %v", row.Name, tools.ErrInvalidArguments, err)
	}
	m["path"] = rel
	b, err := json.Marshal(m)
	return root, b, err
}

// decide calls the tool through the hub and, while its confirmation is
// pending, calls again under the same correlation id (joining it), sending
// progress notifications, until it is decided or ConfirmWait has passed.
// It returns the call allowed or done, or the answer to give instead: a
// denial, or status unknown with the correlation id.
func (r *Runtime) decide(ctx context.Context, s *session, req *mcp.CallToolRequest, tool string, args json.RawMessage, corr string) (hubapi.ToolCall, *mcp.CallToolResult) {
	tc, err := r.c.CallTool(ctx, "", tool, args, corr)
	if err != nil {
		return tc, r.hubError(err)
	}
	if tc.Status == tools.ToolConfirm {
		var waiting Answer
		if tc, waiting, err = r.wait(ctx, s, req, tool, args, tc); err != nil {
			return tc, r.hubError(err)
		}
		if tc.Status == tools.ToolConfirm {
			return tc, pending(waiting)
		}
	}
	switch tc.Status {
	case tools.ToolDone, tools.ToolAllowed:
		return tc, nil
	case tools.ToolCarried:
		return tc, carried(tc)
	case tools.ToolDenied:
		a := r.answerOf(ctx, tc)
		return tc, failed(Failure{Code: failureOf(ErrDenied).Code, Message: fmt.Sprintf("denied at the %s boundary: %s", a.Boundary, a.Reason),
			Boundary: a.Boundary, CorrelationID: a.CorrelationID, Confirmation: a.Confirmation})
	}
	return tc, toolError(fmt.Errorf("%s: the hub answered status %q: %w", tool, tc.Status, ErrUnknownStatus))
}

// wait holds on the hub's wait for the pending call's confirmation (GET
// /v1/confirmations/{id}?wait=), a progress interval at a time, until it
// is decided, ConfirmWait has passed or the call is cancelled, notifying
// progress between holds when the client asked for it (a progress token).
// Once the confirmation is decided the call is made again under its
// correlation id: carried out once if approved, denied otherwise. It
// returns the call as last answered, and the pending answer (who decides
// it), looked up once.
func (r *Runtime) wait(ctx context.Context, s *session, req *mcp.CallToolRequest, tool string, args json.RawMessage, tc hubapi.ToolCall) (hubapi.ToolCall, Answer, error) {
	start := time.Now()
	deadline := start.Add(r.opts.ConfirmWait)
	hold := min(r.opts.Progress, time.Duration(hubapi.LimitOf("confirmation_wait").Max)*time.Second)
	a := r.answerOf(ctx, tc)
	s.activity(tool + ": waiting for " + a.Authority + " to decide " + a.Confirmation)
	note := fmt.Sprintf("waiting for %s to decide confirmation %s (%s boundary); correlation_id %s: if this call ends unanswered, call %s again with the same arguments and that correlation_id to join it",
		a.Authority, a.Confirmation, a.Boundary, a.CorrelationID, tool)
	tok := req.Params.GetProgressToken()
	if tok == nil && req.Session != nil {
		// No progress token: the client learns the ids from one log
		// message (sent when it set a log level) and from the answer.
		//lint:ignore SA1019 the one channel to name the ids outside the answer (see Server)
		_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "virgo", Data: waitNote{Message: note, Answer: a}})
	}
	for {
		if tok != nil && req.Session != nil {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok,
				Progress: time.Since(start).Seconds(), Total: r.opts.ConfirmWait.Seconds(), Message: note})
		}
		left := time.Until(deadline)
		if left <= 0 {
			return tc, a, nil
		}
		c, err := r.c.WaitConfirmation(ctx, tc.ConfirmationID, min(left, hold))
		if err != nil {
			return tc, a, err
		}
		if c.State.Terminal() {
			next, err := r.c.CallTool(ctx, "", tool, args, tc.CorrelationID)
			if err != nil {
				return tc, a, err
			}
			return next, a, nil
		}
	}
}

// waitNote is the log message of a call that waits without a progress
// token: what it waits for, and the ids to rejoin it.
type waitNote struct {
	Message string `json:"message"`
	Answer
}

// hubError is the tool error of a failed hub call; a fenced-out or
// retired refusal stops the runtime and says so.
func (r *Runtime) hubError(err error) *mcp.CallToolResult {
	if r.checkEnded(err) {
		return toolError(r.stopped())
	}
	return toolError(err)
}

// answerOf is the structured answer of a call not carried out; a pending
// one names who decides it.
func (r *Runtime) answerOf(ctx context.Context, tc hubapi.ToolCall) Answer {
	a := Answer{Status: confirm.StatusUnknown, CorrelationID: tc.CorrelationID, Confirmation: tc.ConfirmationID,
		Boundary: tc.Decision.Boundary.String(), Reason: tc.Decision.Reason}
	if tc.ConfirmationID != "" {
		if c, err := r.c.Confirmation(ctx, tc.ConfirmationID); err == nil {
			a.Authority = c.Authority.String()
			if d := c.Decision; d != nil && d.Reason != "" {
				a.Reason = d.Reason
			}
		}
	}
	if a.Authority == "" {
		a.Authority = "the routed authority"
	}
	return a
}

// caller is the tool table's view of the persona calling.
func (r *Runtime) caller() tools.Caller {
	a, _ := registry.ParseAddress(r.st.Path.Address) // proven at boot
	return tools.Caller{PersonaID: r.who.PersonaID, Address: a, Human: r.st.Authority.Human}
}

// resultJSON is a hub-executed call's answer, already JSON.
func resultJSON(b json.RawMessage) *mcp.CallToolResult {
	if len(b) == 0 {
		b = json.RawMessage("{}")
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: b}
}

// result is a carried-out call's answer: its JSON as text, and as
// structured content.
func result(out any) *mcp.CallToolResult {
	b, err := json.Marshal(out)
	if err != nil {
		return toolError(err)
	}
	return resultJSON(b)
}

// carried is the answer of a runtime tool's call whose operation was
// already handed to this persona's runtime under its correlation id: it
// is not carried out again.
func carried(tc hubapi.ToolCall) *mcp.CallToolResult {
	b, _ := json.Marshal(tc)
	at := "earlier"
	if tc.CarriedAt != nil {
		at = "at " + tc.CarriedAt.Format(time.RFC3339)
	}
	text := fmt.Sprintf("already carried out: %s was handed to this runtime %s under correlation_id %q; it is not carried out again\n%s",
		tc.Operation, at, tc.CorrelationID, b)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: json.RawMessage(b)}
}

// pending is the answer of a call whose confirmation is still pending.
func pending(a Answer) *mcp.CallToolResult {
	b, _ := json.Marshal(a)
	text := fmt.Sprintf("status unknown: confirmation %s is still pending with %s; call again with correlation_id %q to join it\n%s",
		a.Confirmation, a.Authority, a.CorrelationID, b)
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: json.RawMessage(b)}
}
