package hub

import (
	"net/http"

	"github.com/virgo-hub/virgo-tui/internal/tools"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
)

// callTool is POST /v1/tools/{tool}: one persona tool call, decided under
// the persona's stamp and carried out by the hub (or, for a runtime tool,
// answered with the allowed operation) — usecase.Cases.CallTool.
func callTool(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	var req hubapi.ToolCallRequest
	if err := decodeBody(w, r, &req, false); err != nil {
		return err
	}
	key, err := idempotencyKey(r, id, req)
	if err != nil {
		return err
	}
	call, err := h.toolCall(r, id, key, usecase.ToolRequest{Persona: req.Persona, Tool: r.PathValue("tool"),
		Args: req.Arguments, CorrelationID: req.CorrelationID})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, call)
	return nil
}

// toolCall is one persona tool call, whichever route it came by: the
// caller from the token and its fence from the header, decided and carried
// out by usecase.CallTool. When the call may have written (a write carried
// out, a confirmation queued) it waits for the hub to apply the store
// (Settle), so the caller's next read of the stream sees it; a read, a
// denial or a runtime tool's answer wrote nothing and is not held up.
func (h *Hub) toolCall(r *http.Request, id hubapi.Identity, key usecase.Key, req usecase.ToolRequest) (tools.ToolCall, error) {
	caller, err := callerOf(id)
	if err != nil {
		return tools.ToolCall{}, err
	}
	if caller.Fence, err = hubapi.ParseFence(r.Header.Get(hubapi.FenceHeader)); err != nil {
		return tools.ToolCall{}, err
	}
	call, err := h.cases.CallTool(r.Context(), key, caller, req)
	if err != nil {
		return call, err
	}
	inv, known := stamp.LookupTool(call.Tool)
	if call.Status == tools.ToolConfirm || call.Status == tools.ToolDone && (!known || inv.Kind.Mutates()) {
		err = h.Settle(r.Context())
	}
	return call, err
}
