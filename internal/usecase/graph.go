package usecase

import (
	"context"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/graph"
	"github.com/virgo-hub/virgo-tui/internal/graph/atlas"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/tasks/board"
)

// queryGraphContext is query_graph_context: one page of the records of the
// caller's graph namespace (internal/graph) — its span, and for a persona
// that works on assigned tasks (a deputy) only those tasks, their runs and
// artifacts and its own decisions.
func queryGraphContext(ctx context.Context, u *Cases, c Call) (any, store.Plan, error) {
	addr, err := registry.ParseAddress(c.Persona.Address)
	if err != nil {
		return nil, store.Plan{}, err
	}
	ns := graph.Namespace{Name: c.Stamp.GraphNamespace, Scope: addr.Scope, Project: addr.Project,
		Persona: confirm.PersonaPrincipal(c.Persona.Address)}
	if addr.IsRoot() {
		ns.Scope, ns.Project = "", ""
	}
	if c.Stamp.Authority.OwningLead != "" {
		if ns.Assigned, err = board.Assigned(ctx, u.st, c.Persona.Address); err != nil {
			return nil, store.Plan{}, err
		}
	}
	limit, _ := c.Args.Int("limit") // 0 when absent: paging's default
	page, err := atlas.Ask(ctx, u.st, ns, graph.Query{Words: c.Args.Str("query"), Kinds: c.Args.Strings("kinds"),
		After: c.Args.Str("after"), Limit: int(limit)})
	return page, store.Plan{}, err
}
