package tools

import (
	"encoding/json"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
)

// ToolStatus is how a tool call ended.
type ToolStatus string

// The statuses of a tool call.
const (
	// ToolDone: the hub carried the call out; Result is its answer.
	ToolDone ToolStatus = "done"
	// ToolAllowed: a runtime tool (tools.Tool.Runtime: the workspace and
	// publication tools) is allowed; the persona's runtime carries out
	// Operation, the normalized operation, on its own files.
	ToolAllowed ToolStatus = "allowed"
	// ToolConfirm: waiting for a confirmation (ConfirmationID). Not
	// terminal: call again with the same correlation id; once approved the
	// call is carried out, exactly once.
	ToolConfirm ToolStatus = "confirm"
	// ToolDenied: terminal; Decision names the boundary and the reason.
	ToolDenied ToolStatus = "denied"
	// ToolCarried: a runtime tool's call under a correlation id whose
	// operation was already handed to the runtime to carry out, at
	// CarriedAt. Terminal: do not carry it out again. (A hub tool's retry
	// is answered with its recorded "done" and Result.)
	ToolCarried ToolStatus = "carried"
)

// ToolCall is the answer to a tool call.
type ToolCall struct {
	Status        ToolStatus        `json:"status"`
	Tool          string            `json:"tool"`
	CorrelationID string            `json:"correlation_id"`
	Operation     confirm.Operation `json:"operation"`
	Decision      confirm.Decision  `json:"decision"`
	// ConfirmationID is the confirmation the call waits on or waited on.
	ConfirmationID string `json:"confirmation_id,omitempty"`
	// Result is the executor's answer (status done).
	Result json.RawMessage `json:"result,omitempty"`
	// CarriedAt is when the call's operation was carried out (done, a
	// write) or handed to the runtime (allowed, carried): a retry under the
	// same correlation id is answered with this record, never carried out
	// again.
	CarriedAt *time.Time `json:"carried_at,omitempty"`
}
