package hub

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/confirm/queue"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/usecase"
)

// operationRequest is the use cases' form of an operation's body.
func operationRequest(req hubapi.OperationRequest) usecase.OperationRequest {
	return usecase.OperationRequest{Persona: req.Persona, Tool: req.Tool, Target: req.Target, Shape: req.Shape,
		CorrelationID: req.CorrelationID}
}

// authorizeOp is POST /v1/authorize: the handler's verdict, nothing queued
// (usecase.Cases.Authorize).
func authorizeOp(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	var req hubapi.OperationRequest
	if err := decodeBody(w, r, &req, false); err != nil {
		return err
	}
	caller, err := callerOf(id)
	if err != nil {
		return err
	}
	a, err := h.cases.Authorize(r.Context(), caller, operationRequest(req))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, hubapi.Authorization{Operation: a.Operation, Decision: a.Decision, Route: a.Decision.Route(),
		BoundaryText: a.Decision.Boundary.Info().Text, StampHash: a.StampHash})
	return nil
}

// requestConfirmation is POST /v1/confirmations: authorize and, on a
// confirm verdict, queue (or join) a confirmation
// (usecase.Cases.RequestConfirmation). The requester is the token's
// identity; a "requester" in the body is ignored.
func requestConfirmation(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	var req hubapi.OperationRequest
	if err := decodeBody(w, r, &req, false); err != nil {
		return err
	}
	caller, err := callerOf(id)
	if err != nil {
		return err
	}
	key, err := idempotencyKey(r, id, req)
	if err != nil {
		return err
	}
	ctx := r.Context()
	_, answer, err := h.cases.RequestConfirmation(ctx, key, caller, operationRequest(req))
	if err != nil {
		return err
	}
	if err := h.Settle(ctx); err != nil {
		return err
	}
	writeJSONBytes(w, http.StatusOK, answer)
	return nil
}

// visible reports whether a caller may see a confirmation: operators see
// all; a persona sees those it asked and those routed to it.
func visible(id hubapi.Identity, c *confirm.Confirmation) bool {
	if id.IsHuman() {
		return true
	}
	return c.PersonaID == id.PersonaID || c.Authority.Name == id.Principal
}

// listConfirmations is GET /v1/confirmations[?all=true].
func listConfirmations(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	cs, err := h.queue.List(r.Context(), r.URL.Query().Get("all") == "true")
	if err != nil {
		return err
	}
	out := make([]*confirm.Confirmation, 0, len(cs))
	for _, c := range cs {
		if visible(id, c) {
			out = append(out, c)
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// getConfirmation is GET /v1/confirmations/{id}[?wait=DURATION]. With
// wait, a pending confirmation is answered once it is decided (or
// withdrawn, or expired), or as still pending when wait has passed, the
// confirmation's expiry came or the hub stops: a runtime waits for its
// human without asking again and again. A held request counts against the
// token's streams_per_token and ends when the token is revoked.
func getConfirmation(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	wait, err := waitOf(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	c, err := h.queue.Get(ctx, r.PathValue("id"))
	if err != nil {
		return err
	}
	if !visible(id, c) {
		return fmt.Errorf("confirmation %s: %w", c.ID, confirm.ErrNoConfirmation)
	}
	if wait > 0 && c.State == confirm.StatePending {
		held, release, err := h.holdStream(r)
		if err != nil {
			return err
		}
		defer release()
		decided, leave := h.decided.wait(c.ID)
		defer leave()
		// Read again now that the wait is registered: a decision the
		// watch applied between the first read and the registration is
		// in this read, one applied after it closes decided.
		if c, err = h.queue.Get(held, c.ID); err != nil {
			return err
		}
		if c.State == confirm.StatePending {
			timer := time.NewTimer(min(wait, max(time.Until(c.ExpiresAt), 0)))
			defer timer.Stop()
			select {
			case <-decided:
				if c, err = h.queue.Get(held, c.ID); err != nil {
					return err
				}
			case <-timer.C:
			case <-h.streamsDone:
			case <-held.Done():
				return context.Cause(held)
			}
		}
	}
	writeJSON(w, http.StatusOK, c)
	return nil
}

// decide is POST /v1/confirmations/{id}/decide. The decider is the token's
// identity. The decision, its audit entry and its lifecycle effect (a
// generation activated, refused or retired) are one transaction committed
// (and synced) before the answer (usecase.Cases.Decide).
func decide(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	var req hubapi.DecideRequest
	if err := decodeBody(w, r, &req, false); err != nil {
		return err
	}
	decider, err := id.ConfirmPrincipal()
	if err != nil {
		return err
	}
	key, err := idempotencyKey(r, id, req)
	if err != nil {
		return err
	}
	ctx := r.Context()
	c, err := h.cases.Decide(ctx, key, decider, r.PathValue("id"), req.Approve, req.Remember, req.Reason)
	if err != nil {
		return err
	}
	if c.Kind == confirm.KindRetirement && c.State == confirm.StateApproved {
		// Refused from the moment its retirement is approved: not only once
		// the watcher has seen the retired record.
		h.tokens.Retire(c.PersonaID)
		h.presence.Retire(c.PersonaID)
		h.woken.fire(c.PersonaID)
	}
	if err := h.Settle(ctx); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, c)
	return nil
}

// listPrompts is GET /v1/prompts[?persona=REF[&review=true]]: every learned
// choice, or a persona's active ones, or its stale ones awaiting review.
func listPrompts(h *Hub, w http.ResponseWriter, r *http.Request, _ hubapi.Identity) error {
	q := r.URL.Query()
	ctx := r.Context()
	if q.Get("persona") == "" {
		all, err := h.queue.Prompts().All(ctx)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, all)
		return nil
	}
	p, err := h.cases.Resolve(ctx, q.Get("persona"))
	if err != nil {
		return err
	}
	list := h.queue.Prompts().Active
	if q.Get("review") == "true" {
		list = h.queue.Prompts().Review
	}
	keys, err := h.cases.LearnKeys(ctx, p)
	if err != nil {
		return err
	}
	cs, err := list(ctx, p.Address, string(p.Profile), keys)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, cs)
	return nil
}

// listAudit is GET /v1/audit[?limit=N]: the audit log in commit order, the
// last N entries with a limit.
func listAudit(h *Hub, w http.ResponseWriter, r *http.Request, _ hubapi.Identity) error {
	es, err := queue.Audit(r.Context(), h.st)
	if err != nil {
		return err
	}
	if s := r.URL.Query().Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return hubapi.Errorf(hubapi.ErrBadQuery, "limit=%q: want a count (0 or more)", s)
		}
		if n < len(es) {
			es = es[len(es)-n:]
		}
	}
	writeJSON(w, http.StatusOK, es)
	return nil
}

// reviewPrompt is POST /v1/prompts/{id}/carry-forward (carry true) and
// POST /v1/prompts/{id}/drop: a human resolves a stale learned choice. The
// decider is the operator token's human; the answer is the choice as
// carried forward (re-keyed to the current stamp hash) or as dropped
// (usecase.Cases.ReviewPrompt).
func reviewPrompt(carry bool) func(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	return func(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
		var req hubapi.PromptReviewRequest
		if err := decodeBody(w, r, &req, false); err != nil {
			return err
		}
		decider, err := callerOf(id)
		if err != nil {
			return err
		}
		key, err := idempotencyKey(r, id, req)
		if err != nil {
			return err
		}
		ctx := r.Context()
		c, err := h.cases.ReviewPrompt(ctx, key, decider, req.Persona, r.PathValue("id"), carry)
		if err != nil {
			return err // confirm.ErrNoChoice when someone else resolved it meanwhile
		}
		if err := h.Settle(ctx); err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, c)
		return nil
	}
}
