// Package atlas answers query_graph_context over the stored records
// (internal/graph holds the node, the namespace and the query as values).
// What it reads is one table (sources): each row is a kind of record, the
// store prefix that holds it and how a record becomes a Node. A query
// walks the rows in order, filters every record by the namespace and the
// words asked, and stops at the page's limit or its scan budget,
// answering a continuation token for the rest; a token names only a
// position, and a key under no row's prefix is refused.
package atlas

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/coord/switchboard"
	"github.com/virgo-hub/virgo-tui/internal/decisions"
	"github.com/virgo-hub/virgo-tui/internal/decisions/ledger"
	"github.com/virgo-hub/virgo-tui/internal/graph"
	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/runs"
	"github.com/virgo-hub/virgo-tui/internal/runs/journal"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
	"github.com/virgo-hub/virgo-tui/internal/tasks"
	"github.com/virgo-hub/virgo-tui/internal/tasks/board"
)

// readAhead is how many records past what a page still needs one store
// read asks for: most records are filtered out.
const readAhead = 64

// source is one row of the graph's table: a kind of record, where it is
// stored, and how a stored record becomes a node.
type source struct {
	kind   string
	prefix string
	node   func(store.KV) (graph.Node, error)
}

// sources is the graph's table, in the order a query walks it.
var sources = []source{
	{"task", board.PrefixRecord, decode(func(t tasks.Task) graph.Node {
		return graph.Node{Kind: "task", ID: t.ID, Scope: t.Scope, Project: t.Project, Task: t.ID, Title: t.Title,
			State: t.State, By: partyPrincipal(t.By), Time: t.Updated}
	})},
	{"run", journal.PrefixRun, decode(func(r runs.Run) graph.Node {
		return graph.Node{Kind: "run", ID: r.ID, Scope: r.Scope, Project: r.Project, Task: r.Task, Title: r.Title,
			State: string(r.State), By: r.CreatedBy, Time: r.Updated}
	})},
	{"artifact", journal.PrefixArtifact, decode(func(a runs.Artifact) graph.Node {
		return graph.Node{Kind: "artifact", ID: fmt.Sprintf("%s/%d", a.Run, a.Seq), Scope: a.Scope, Project: a.Project,
			Task: a.Task, Run: a.Run, Title: a.Name, By: a.By, Time: a.Time}
	})},
	{"decision", ledger.PrefixItem, decode(func(d decisions.Decision) graph.Node {
		return graph.Node{Kind: "decision", ID: d.ID, Scope: d.Scope, Project: d.Project, Title: d.Question,
			State: string(d.State), By: d.RaisedBy, Time: d.Raised}
	})},
	// A message's metadata: its subject, never its body.
	{"message", switchboard.PrefixInbox, decode(func(m coord.Message) graph.Node {
		return graph.Node{Kind: "message", ID: m.ID, To: m.To, Title: m.Subject, By: confirm.PersonaPrincipal(m.From.Address), Time: m.SentAt}
	})},
}

// Kinds returns the kinds of record the graph reads, in walking order.
func Kinds() []string {
	out := make([]string, len(sources))
	for i, s := range sources {
		out[i] = s.kind
	}
	return out
}

// partyPrincipal is who a task's party is: a persona by its address, or
// a human by its principal.
func partyPrincipal(p tasks.Party) confirm.Principal {
	if p.Address != "" {
		return confirm.PersonaPrincipal(p.Address)
	}
	who, _ := confirm.ParsePrincipal(p.ID)
	return who
}

func decode[T any](node func(T) graph.Node) func(store.KV) (graph.Node, error) {
	return func(kv store.KV) (graph.Node, error) {
		var v T
		if err := strictjson.DecodeOpen(kv.Value, &v); err != nil {
			return graph.Node{}, fmt.Errorf("record %s: %w", kv.Key, err)
		}
		return node(v), nil
	}
}

// Ask answers one page of q over the records of namespace ns in st.
func Ask(ctx context.Context, st store.Store, ns graph.Namespace, q graph.Query) (graph.Page, error) {
	limit, err := paging.Limit(q.Limit)
	if err != nil {
		return graph.Page{}, err
	}
	words := strings.Fields(strings.ToLower(q.Words))
	if len(words) > graph.MaxWords {
		return graph.Page{}, fmt.Errorf("%w (%d given)", graph.ErrTooManyWord, len(words))
	}
	want, err := kindSet(q.Kinds)
	if err != nil {
		return graph.Page{}, err
	}
	row, from, err := parseToken(q.After)
	if err != nil {
		return graph.Page{}, err
	}
	out := graph.Page{Items: []graph.Node{}}
	scanned := 0
	for ; row < len(sources); row, from = row+1, "" {
		src := sources[row]
		if !want[src.kind] {
			continue
		}
		if from == "" {
			from = src.prefix // every key of the row is above it
		}
		for {
			if len(out.Items) == limit || scanned == graph.MaxScan {
				out.Next = paging.Token("", from)
				return out, nil
			}
			kvs, more, err := st.Range(ctx, src.prefix, from, min(graph.MaxScan-scanned, limit-len(out.Items)+readAhead))
			if err != nil {
				return graph.Page{}, fmt.Errorf("graph %s: read %ss: %w", ns.Name, src.kind, err)
			}
			for _, kv := range kvs {
				if len(out.Items) == limit {
					out.Next = paging.Token("", from)
					return out, nil
				}
				scanned++
				from = kv.Key
				n, err := src.node(kv)
				if err != nil {
					return graph.Page{}, err
				}
				if ns.Holds(n) && matches(n, words) {
					out.Items = append(out.Items, n)
				}
			}
			if !more {
				break
			}
		}
	}
	return out, nil
}

func matches(n graph.Node, words []string) bool {
	hay := strings.ToLower(n.Title + " " + n.ID)
	for _, w := range words {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

func kindSet(kinds []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, k := range kinds {
		if !slices.Contains(Kinds(), k) {
			return nil, fmt.Errorf("%w %q (one of %s)", graph.ErrUnknownKind, k, strings.Join(Kinds(), ", "))
		}
		out[k] = true
	}
	if len(kinds) == 0 {
		for _, s := range sources {
			out[s.kind] = true
		}
	}
	return out, nil
}

// parseToken reads a token back into the row it continues and the key
// the row continues after, refusing any that names a key under no row's
// prefix: this package would not have given it.
func parseToken(t string) (int, string, error) {
	key, err := paging.After("", t)
	if err != nil || key == "" {
		return 0, "", err
	}
	for row, src := range sources {
		if strings.HasPrefix(key, src.prefix) {
			return row, key, nil
		}
	}
	return 0, "", fmt.Errorf("%w: it names no record the graph reads", paging.ErrBadToken)
}
