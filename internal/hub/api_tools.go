package hub

import (
	"net/http"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
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
	caller, err := id.Caller()
	if err != nil {
		return err
	}
	if caller.Fence, err = hubapi.ParseFence(r.Header.Get(hubapi.FenceHeader)); err != nil {
		return err
	}
	key, err := idempotencyKey(r, id, req)
	if err != nil {
		return err
	}
	ctx := r.Context()
	call, err := h.cases.CallTool(ctx, key, caller, usecase.ToolRequest{Persona: req.Persona, Tool: r.PathValue("tool"),
		Args: req.Arguments, CorrelationID: req.CorrelationID})
	if err != nil {
		return err
	}
	if err := h.Settle(ctx); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, call)
	return nil
}
