package hubclient

import (
	"context"
	"encoding/json"
	"net/url"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// CallTool calls a persona tool: as the client's persona (a runtime
// token), or for persona (an operator acting for it; "" with a runtime
// token). args is the tool's JSON arguments; correlationID names the call
// for its retries ("" lets the hub make one, answered in the ToolCall).
// The client's retries of one CallTool send one Idempotency-Key, so a
// call whose answer was lost is answered from its record.
func (c *Client) CallTool(ctx context.Context, persona, tool string, args json.RawMessage, correlationID string) (hubapi.ToolCall, error) {
	var out hubapi.ToolCall
	err := c.do(ctx, "POST", "/v1/tools/"+url.PathEscape(tool),
		hubapi.ToolCallRequest{Persona: persona, Arguments: args, CorrelationID: correlationID}, &out)
	return out, err
}
