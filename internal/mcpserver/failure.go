package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/tools"
	"github.com/virgo-hub/virgo-tui/internal/workspace"
)

// Failure is the one shape of every failed call's answer: the result's
// isError is set, and its structured content (and its text, as JSON) is
// a Failure, whatever failed — the arguments, the hub, a boundary, the
// runtime. An agent tests Code, never the message's words.
type Failure struct {
	// Code is the hub's wire code (docs/api.md) or one of the runtime's
	// own (runtimeCodes); docs/mcp.md lists every one.
	Code string `json:"code"`
	// Message is the sentence an agent or its operator reads.
	Message string `json:"message"`
	// Boundary is the boundary that denied the call, when one did.
	Boundary string `json:"boundary,omitempty"`
	// Retryable says the same call may succeed later, unchanged (a
	// limit, a busy store, a cancelled wait); false means it fails again
	// until something else changes.
	Retryable bool `json:"retryable"`
	// CorrelationID and Confirmation name a decided call: a denial (by a
	// boundary or by its authority).
	CorrelationID string `json:"correlation_id,omitempty"`
	Confirmation  string `json:"confirmation,omitempty"`
}

// failureAnswer is Failure's shape, one of every tool's answers in its
// output schema (tools.Tool.OutputSchema).
var failureAnswer = tools.Result{
	{Name: "code", Kind: tools.KindString},
	{Name: "message", Kind: tools.KindString},
	{Name: "boundary", Kind: tools.KindString, Optional: true},
	{Name: "retryable", Kind: tools.KindBoolean},
	{Name: "correlation_id", Kind: tools.KindString, Optional: true},
	{Name: "confirmation", Kind: tools.KindString, Optional: true},
}

// ErrDenied: a boundary, or the authority of its confirmation, denied the
// call; Failure.Boundary names the boundary.
var ErrDenied = errors.New("denied")

// ErrUnknownStatus: the hub answered a call with a status this runtime
// does not know (a hub newer than the runtime): nothing is assumed about
// whether it was carried out.
var ErrUnknownStatus = errors.New("a tool call status this runtime does not know; upgrade virgo-tui mcp to the hub's version")

// runtimeCodes are the codes of what fails in this server rather than in
// the hub, beside the hub's table (hubapi.ErrorCodes), whose codes they
// never reuse (TestFailureCodesAreUnique). Data: failureOf, docs/mcp.md's
// table and its test read it.
var runtimeCodes = []struct {
	err       error
	code      string
	retryable bool
	doc       string
}{
	{ErrDenied, "denied", false, "a boundary denied the call, or its authority denied its confirmation; `boundary` names it, and a retry is denied again"},
	{ErrUnknownStatus, "unknown_call_status", false, "the hub answered a status this server does not know (the hub is newer): upgrade the server; whether the call was carried out is not known"},
	{ErrNoRepository, "no_repository_bound", false, "`\"workspace\": \"repository\"` on a persona whose stamp binds no repository"},
	{workspace.ErrNotMutable, "not_mutable", false, "a write outside the stamp's mutable paths, seen at the file after the hub allowed it"},
	{workspace.ErrTooLarge, "write_too_large", false, "a write's content over the workspace write limit"},
	{workspace.ErrNotDir, "not_directory", false, "a listing of something that is not a directory"},
	{workspace.ErrExists, "file_exists", false, "a create of a file that exists: write with `action: overwrite`"},
	{workspace.ErrBadCursor, "bad_list_cursor", false, "a listing's `after` that is not an entry name"},
	{ErrFencedOut, "fenced_out", false, "a newer instance of this persona generation connected; this session ends"},
	{ErrRetiredOut, "retired_out", false, "this persona generation was retired; this session ends"},
	{errSessionEnded, "session_ended", false, "the session ended while the call was in flight"},
	{hubclient.ErrNoHub, "no_hub", true, "no hub answers for the installation; the call may pass once one runs"},
	{context.Canceled, "cancelled", true, "the call was cancelled (the client's cancel, or the server stopping)"},
	{context.DeadlineExceeded, "timed_out", true, "a deadline passed before the hub answered"},
}

// retryableStatus: the hub answers these for a limit or a busy store;
// the same call may pass later (docs/api.md: 429 and 503).
func retryableStatus(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable
}

// failureOf classifies err: the runtime's own codes first, then the hub's
// (an answer from the wire keeps its code; a named error is found in the
// hub's table), and anything else is internal.
func failureOf(err error) Failure {
	var api *hubapi.APIError
	if !errors.As(err, &api) {
		for _, m := range runtimeCodes {
			if errors.Is(err, m.err) {
				return Failure{Code: m.code, Message: err.Error(), Retryable: m.retryable}
			}
		}
	}
	ae := hubapi.FromError(err)
	return Failure{Code: ae.Code, Message: ae.Msg, Retryable: retryableStatus(ae.Status)}
}

// failed is the answer of a failed call: isError, the failure as
// structured content and as its JSON text.
func failed(f Failure) *mcp.CallToolResult {
	b, _ := json.Marshal(f) // strings and a bool always marshal
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: json.RawMessage(b)}
}

// toolError is the answer of a call that failed with err.
func toolError(err error) *mcp.CallToolResult { return failed(failureOf(err)) }
