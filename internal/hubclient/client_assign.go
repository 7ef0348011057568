package hubclient

import (
	"context"
	"net/url"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// Assign records task (scope/project/task) as assigned to the deputy ref,
// as this client's identity: the deputy's owning lead or its bound human.
func (c *Client) Assign(ctx context.Context, ref, task string) (confirm.Assignment, error) {
	var a confirm.Assignment
	err := c.do(ctx, "POST", "/v1/assignments", hubapi.AssignRequest{Persona: ref, Task: task}, &a)
	return a, err
}

// Unassign removes an assigned task of the deputy ref (same rules as Assign).
func (c *Client) Unassign(ctx context.Context, ref, task string) error {
	return c.do(ctx, "POST", "/v1/assignments", hubapi.AssignRequest{Persona: ref, Task: task, Remove: true}, nil)
}

// Assignments lists the tasks assigned to the persona ref's generation.
func (c *Client) Assignments(ctx context.Context, ref string) ([]confirm.Assignment, error) {
	var as []confirm.Assignment
	err := c.do(ctx, "GET", "/v1/assignments?"+url.Values{"persona": {ref}}.Encode(), nil, &as)
	return as, err
}
