package hub

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// operation resolves the persona, its policy and the normalized operation.
func (h *Hub) operation(ctx context.Context, id hubapi.Identity, req hubapi.OperationRequest) (*confirm.Policy, confirm.Operation, error) {
	var p registry.Persona
	var err error
	switch {
	case !id.IsHuman():
		p, err = h.reg.Get(ctx, id.PersonaID)
	case req.Persona == "":
		return nil, confirm.Operation{}, hubapi.Errorf(hubapi.ErrPersonaRequired, "an operator names the persona: send \"persona\" (an address, name or id)")
	default:
		p, err = h.resolve(ctx, req.Persona)
	}
	if err != nil {
		return nil, confirm.Operation{}, err
	}
	if p.State != registry.StateActive {
		return nil, confirm.Operation{}, fmt.Errorf("%s (%s) is %s: %w", p.Address, p.Name, p.State, hubapi.ErrForbidden)
	}
	st, err := h.cases.LoadStamp(p)
	if err != nil {
		return nil, confirm.Operation{}, err
	}
	keys, err := confirm.KeysOf(&st, p.StampHash)
	if err != nil {
		return nil, confirm.Operation{}, err
	}
	learned, err := h.queue.Prompts().Active(ctx, p.Address, string(p.Profile), keys)
	if err != nil {
		return nil, confirm.Operation{}, err
	}
	// The deputy's assigned tasks are those its owning lead (or bound
	// human) recorded, never ones the request asserts.
	assigned, err := h.queue.Assignments(ctx, p.ID)
	if err != nil {
		return nil, confirm.Operation{}, err
	}
	pol, err := confirm.NewPolicy(&st, p.StampHash, confirm.Options{Learned: learned, Assignments: confirm.Tasks(assigned),
		Holders: activeSeats{ctx, seatHolders{h.reg}}})
	if err != nil {
		return nil, confirm.Operation{}, err
	}
	shape, err := confirm.ParseShape(req.Shape)
	if err != nil {
		return nil, confirm.Operation{}, badOperation(err)
	}
	action, _ := pol.Tool(req.Tool) // a tool not on the stamp is denied "not exposed" by Authorize
	op := confirm.Operation{Persona: p.Address, Generation: p.Generation, Tool: req.Tool, HandlerAction: action, Shape: shape}
	if op.Target, err = confirm.ParseTarget(req.Target); err != nil {
		if confirm.MalformedTarget(err) {
			return nil, confirm.Operation{}, badOperation(err)
		}
		return pol, op, &targetEscape{err: err}
	}
	return pol, op, nil
}

// targetEscape is a well-formed target that normalization refused as an
// escape from the persona's scope: authorize decides it (a deny on the
// cross-scope boundary); a confirmation request refuses it.
type targetEscape struct{ err error }

func (e *targetEscape) Error() string { return e.err.Error() }
func (e *targetEscape) Unwrap() error { return e.err }

func badOperation(err error) error {
	return hubapi.Errorf(hubapi.ErrInvalidOperation, "%v", err)
}

// authorizeOp is POST /v1/authorize: the handler's verdict, nothing queued.
func authorizeOp(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	var req hubapi.OperationRequest
	if err := decodeBody(w, r, &req, false); err != nil {
		return err
	}
	pol, op, err := h.operation(r.Context(), id, req)
	var d confirm.Decision
	var escape *targetEscape
	switch {
	case errors.As(err, &escape):
		d = confirm.TargetRefusal(escape.err)
	case err != nil:
		return err
	default:
		d = pol.Authorize(op)
	}
	writeJSON(w, http.StatusOK, hubapi.Authorization{Operation: op, Decision: d, Route: d.Route(),
		BoundaryText: d.Boundary.Info().Text, StampHash: pol.Hash()})
	return nil
}

// requestConfirmation is POST /v1/confirmations: authorize and, on a
// confirm verdict, queue (or join) a confirmation. The requester is the
// token's identity; a "requester" in the body is ignored.
func requestConfirmation(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	var req hubapi.OperationRequest
	if err := decodeBody(w, r, &req, false); err != nil {
		return err
	}
	pol, op, err := h.operation(r.Context(), id, req)
	if escape := (*targetEscape)(nil); errors.As(err, &escape) {
		return badOperation(escape.err)
	}
	if err != nil {
		return err
	}
	caller, err := id.ConfirmPrincipal()
	if err != nil {
		return err
	}
	res, err := h.queue.Request(r.Context(), caller, pol, op, req.CorrelationID)
	if err != nil {
		return err
	}
	if err := h.Settle(r.Context()); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, res)
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

// getConfirmation is GET /v1/confirmations/{id}.
func getConfirmation(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	c, err := h.queue.Get(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	if !visible(id, c) {
		return fmt.Errorf("confirmation %s: %w", c.ID, confirm.ErrNoConfirmation)
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
		h.tokens.Revoke(c.PersonaID)
		h.presence.Retire(c.PersonaID)
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
	p, err := h.resolve(ctx, q.Get("persona"))
	if err != nil {
		return err
	}
	list := h.queue.Prompts().Active
	if q.Get("review") == "true" {
		list = h.queue.Prompts().Review
	}
	keys, err := h.learnKeys(p)
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
	es, err := confirm.Audit(r.Context(), h.st)
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

// learnKeys are the keys p's learned choices match under now: its stamp
// hash and the class key of its stamp.
func (h *Hub) learnKeys(p registry.Persona) (confirm.Keys, error) {
	st, err := h.cases.LoadStamp(p)
	if err != nil {
		return confirm.Keys{}, err
	}
	return confirm.KeysOf(&st, p.StampHash)
}

// staleChoice finds the learned choice choiceID among the persona's stale
// ones: only a choice learned under another stamp (or class key) than the
// persona's current one is reviewed. It returns the persona's current keys.
func (h *Hub) staleChoice(ctx context.Context, ref, choiceID string) (confirm.Keys, confirm.Choice, error) {
	if ref == "" {
		return confirm.Keys{}, confirm.Choice{}, hubapi.Errorf(hubapi.ErrPersonaRequired, "name the persona whose stale choice this is: send \"persona\" (an address, name or id)")
	}
	p, err := h.resolve(ctx, ref)
	if err != nil {
		return confirm.Keys{}, confirm.Choice{}, err
	}
	keys, err := h.learnKeys(p)
	if err != nil {
		return keys, confirm.Choice{}, err
	}
	stale, err := h.queue.Prompts().Review(ctx, p.Address, string(p.Profile), keys)
	if err != nil {
		return keys, confirm.Choice{}, err
	}
	for _, c := range stale {
		if c.ID() == choiceID {
			return keys, c, nil
		}
	}
	return keys, confirm.Choice{}, fmt.Errorf("choice %s of %s: %w among its stale choices (list them: GET /v1/prompts?persona=%s&review=true)",
		choiceID, p.Address, confirm.ErrNoChoice, p.Address)
}

// reviewPrompt is POST /v1/prompts/{id}/carry-forward (carry true) and
// POST /v1/prompts/{id}/drop: a human resolves a stale learned choice. The
// decider is the operator token's human; the answer is the choice as
// carried forward (re-keyed to the current stamp hash) or as dropped. The
// change and its audit entry are one transaction.
func reviewPrompt(carry bool) func(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
	return func(h *Hub, w http.ResponseWriter, r *http.Request, id hubapi.Identity) error {
		var req hubapi.PromptReviewRequest
		if err := decodeBody(w, r, &req, false); err != nil {
			return err
		}
		decider, err := id.ConfirmPrincipal()
		if err != nil {
			return err
		}
		ctx := r.Context()
		keys, c, err := h.staleChoice(ctx, req.Persona, r.PathValue("id"))
		if err != nil {
			return err
		}
		if carry {
			c, err = h.queue.Prompts().CarryForward(ctx, decider, c, keys)
		} else {
			err = h.queue.Prompts().Drop(ctx, decider, c, keys)
		}
		if err != nil {
			return err // ErrNoChoice when someone else resolved it meanwhile
		}
		if err := h.Settle(ctx); err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, c)
		return nil
	}
}
