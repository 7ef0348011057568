package hubclient

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// Register asks for a new persona generation (see Hub.Register): pending
// until its bound human approves the returned activation confirmation.
func (c *Client) Register(ctx context.Context, req hubapi.RegisterRequest) (hubapi.Registered, error) {
	var out hubapi.Registered
	err := c.do(ctx, "POST", "/v1/personas", req, &out)
	return out, err
}

// PreviewRegistration is what Register would write, from the hub's dry run
// of the registration; see POST /v1/personas?dry_run=1.
func (c *Client) PreviewRegistration(ctx context.Context, req hubapi.RegisterRequest) (hubapi.RegistrationPreview, error) {
	var out hubapi.RegistrationPreview
	err := c.do(ctx, "POST", "/v1/personas?dry_run=1", req, &out)
	return out, err
}

// RequestRetirement asks to retire the persona named by ref; see
// POST /v1/personas/retire.
func (c *Client) RequestRetirement(ctx context.Context, ref, reason string) (hubapi.Retirement, error) {
	var out hubapi.Retirement
	err := c.do(ctx, "POST", "/v1/personas/retire", hubapi.RetireRequest{Persona: ref, Reason: reason}, &out)
	return out, err
}

// Authorize returns the hub's decision on one operation — the normalized
// operation, verdict, boundary, route and stamp hash; nothing is queued.
// A malformed operation is an error (hubapi.ErrInvalidOperation).
func (c *Client) Authorize(ctx context.Context, req hubapi.OperationRequest) (hubapi.Authorization, error) {
	var a hubapi.Authorization
	err := c.do(ctx, "POST", "/v1/authorize", req, &a)
	return a, err
}

// RequestConfirmation authorizes an operation and queues (or joins) a
// confirmation on a confirm verdict. Retry with the same CorrelationID.
func (c *Client) RequestConfirmation(ctx context.Context, req hubapi.OperationRequest) (confirm.Result, error) {
	const path = "/v1/confirmations"
	b, err := c.call(ctx, "POST", path, req)
	if err != nil {
		return confirm.Result{}, err
	}
	var r confirm.Result
	if err := hubapi.Decode(b, &r); err != nil {
		return confirm.Result{}, fmt.Errorf("POST %s: unreadable answer: %w", path, err)
	}
	return r, nil
}

// Confirmations lists pending confirmations, or all with all.
func (c *Client) Confirmations(ctx context.Context, all bool) ([]*confirm.Confirmation, error) {
	var cs []*confirm.Confirmation
	path := "/v1/confirmations"
	if all {
		path += "?all=true"
	}
	err := c.do(ctx, "GET", path, nil, &cs)
	return cs, err
}

// Confirmation returns one confirmation.
func (c *Client) Confirmation(ctx context.Context, id string) (*confirm.Confirmation, error) {
	var cf confirm.Confirmation
	if err := c.do(ctx, "GET", "/v1/confirmations/"+url.PathEscape(id), nil, &cf); err != nil {
		return nil, err
	}
	return &cf, nil
}

// WaitConfirmation gets one confirmation, holding for up to wait while it
// is pending (GET /v1/confirmations/{id}?wait=): the answer is the
// confirmation once decided, withdrawn or expired, or still pending when
// wait has passed. wait is at most the hub's confirmation_wait limit.
func (c *Client) WaitConfirmation(ctx context.Context, id string, wait time.Duration) (*confirm.Confirmation, error) {
	var cf confirm.Confirmation
	if err := c.do(ctx, "GET", "/v1/confirmations/"+url.PathEscape(id)+"?wait="+url.QueryEscape(wait.String()), nil, &cf); err != nil {
		return nil, err
	}
	return &cf, nil
}

// Decide approves or denies a confirmation as this client's identity. The
// answer comes after the decision is committed durably.
func (c *Client) Decide(ctx context.Context, id string, d hubapi.DecideRequest) (*confirm.Confirmation, error) {
	var cf confirm.Confirmation
	if err := c.do(ctx, "POST", "/v1/confirmations/"+url.PathEscape(id)+"/decide", d, &cf); err != nil {
		return nil, err
	}
	return &cf, nil
}

// Prompts lists learned choices: all (persona ""), a persona's active
// ones, or with review its stale ones.
func (c *Client) Prompts(ctx context.Context, persona string, review bool) ([]confirm.Choice, error) {
	q := url.Values{}
	if persona != "" {
		q.Set("persona", persona)
	}
	if review {
		q.Set("review", "true")
	}
	var cs []confirm.Choice
	err := c.do(ctx, "GET", "/v1/prompts?"+q.Encode(), nil, &cs)
	return cs, err
}

// Audit returns the audit log in commit order; limit > 0 keeps the last entries.
func (c *Client) Audit(ctx context.Context, limit int) ([]confirm.AuditEntry, error) {
	path := "/v1/audit"
	if limit > 0 {
		path += "?limit=" + strconv.Itoa(limit)
	}
	var es []confirm.AuditEntry
	err := c.do(ctx, "GET", path, nil, &es)
	return es, err
}

// Stamp returns a persona's capability stamp.
func (c *Client) Stamp(ctx context.Context, ref string) (hubapi.StampView, error) {
	var s hubapi.StampView
	err := c.do(ctx, "GET", "/v1/stamps/"+escapeRef(ref), nil, &s)
	return s, err
}

// DiffStamps compares two sides, each a capability profile, a persona
// reference, or "" for nothing.
func (c *Client) DiffStamps(ctx context.Context, from, to string) (hubapi.DiffView, error) {
	var d hubapi.DiffView
	err := c.do(ctx, "GET", "/v1/stamps/diff?"+url.Values{"from": {from}, "to": {to}}.Encode(), nil, &d)
	return d, err
}

// CarryForwardChoice re-keys the persona's stale learned choice id to its
// current stamp hash, as this client's human (operators only), and
// returns the choice as it now stands.
func (c *Client) CarryForwardChoice(ctx context.Context, persona, id string) (confirm.Choice, error) {
	var ch confirm.Choice
	err := c.do(ctx, "POST", "/v1/prompts/"+url.PathEscape(id)+"/carry-forward", hubapi.PromptReviewRequest{Persona: persona}, &ch)
	return ch, err
}

// DropChoice removes the persona's stale learned choice id, as this
// client's human (operators only), and returns the choice dropped.
func (c *Client) DropChoice(ctx context.Context, persona, id string) (confirm.Choice, error) {
	var ch confirm.Choice
	err := c.do(ctx, "POST", "/v1/prompts/"+url.PathEscape(id)+"/drop", hubapi.PromptReviewRequest{Persona: persona}, &ch)
	return ch, err
}
