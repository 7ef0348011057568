// Package graph answers query_graph_context: a bounded, read-only query
// over the collaboration records of one persona's graph namespace — tasks,
// runs, artifacts, decisions, messages' metadata — a page at a time, never
// crossing the namespace.
//
// What the graph reads is one table (sources): each row is a kind of
// record, the store prefix that holds it and how a record becomes a Node.
// A query walks the rows in order, filters every record by the namespace
// and the words asked, and stops at the page's limit or its scan budget,
// answering a continuation token for the rest. A page is the one page
// form of every list (internal/paging); its token names only a position,
// the last key read, whose row is the one whose prefix holds it: a forged
// token can skip records, never reach one outside the namespace, since
// every record is filtered on every page, and a key under no row's prefix
// is refused.
package graph

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/coord/switchboard"
	"github.com/virgo-hub/virgo-tui/internal/decisions"
	"github.com/virgo-hub/virgo-tui/internal/decisions/ledger"
	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/runs"
	"github.com/virgo-hub/virgo-tui/internal/runs/journal"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/tasks"
	"github.com/virgo-hub/virgo-tui/internal/tasks/board"
)

// The bounds of one query; a page's size is paging's (paging.Limit).
const (
	// MaxScan is the most records one page reads before it answers what it
	// has with a continuation: a query's cost is bounded whatever it asks.
	MaxScan = 5000
	// MaxWords bounds the words of a query.
	MaxWords = 16
	// readAhead is how many records past what a page still needs one
	// store read asks for: most records are filtered out.
	readAhead = 64
)

// Named errors of a query.
var (
	ErrUnknownKind = errors.New("unknown record kind")
	ErrTooManyWord = errors.New("a query has at most 16 words")
)

// Node is one record as graph context: enough to find and read it with
// its own tool, never its full text.
type Node struct {
	Kind    string `json:"kind"`
	ID      string `json:"id"`
	Scope   string `json:"scope"`
	Project string `json:"project,omitempty"`
	// To is a message's recipient seat: a message is its parties' only.
	To string `json:"to,omitempty"`
	// Task and Run link a run to its task and an artifact to its run.
	Task  string `json:"task,omitempty"`
	Run   string `json:"run,omitempty"`
	Title string `json:"title,omitempty"`
	State string `json:"state,omitempty"`
	// By is who created the record.
	By   confirm.Principal `json:"by"`
	Time time.Time         `json:"time"`
}

// Namespace is what one persona's graph namespace holds: the records of
// its span (every scope for a root persona; its scope; its project), and
// for a persona that works on assigned tasks (a deputy) only those tasks,
// their runs and artifacts, and the decisions it raised.
type Namespace struct {
	// Name is the stamp's graph namespace, for messages.
	Name    string
	Scope   string
	Project string
	// Assigned, when not nil, is the only tasks the persona reaches.
	Assigned map[string]bool
	// Persona is the namespace's persona.
	Persona confirm.Principal
}

// holds reports whether n lies in the namespace.
func (ns Namespace) holds(n Node) bool {
	if n.To != "" {
		// A message is metadata of its sender's and its recipient's
		// conversation, nobody else's, whatever their span.
		return n.To == ns.Persona.Name || n.By == ns.Persona
	}
	if ns.Scope != "" && n.Scope != ns.Scope || ns.Project != "" && n.Project != ns.Project {
		return false
	}
	if ns.Assigned == nil {
		return true
	}
	if n.Task != "" {
		return ns.Assigned[n.Task]
	}
	return n.By == ns.Persona
}

// source is one row of the graph's table: a kind of record, where it is
// stored, and how a stored record becomes a node.
type source struct {
	kind   string
	prefix string
	node   func(store.KV) (Node, error)
}

// sources is the graph's table, in the order a query walks it.
var sources = []source{
	{"task", board.PrefixRecord, decode(func(t tasks.Task) Node {
		return Node{Kind: "task", ID: t.ID, Scope: t.Scope, Project: t.Project, Task: t.ID, Title: t.Title,
			State: t.State, By: partyPrincipal(t.By), Time: t.Updated}
	})},
	{"run", journal.PrefixRun, decode(func(r runs.Run) Node {
		return Node{Kind: "run", ID: r.ID, Scope: r.Scope, Project: r.Project, Task: r.Task, Title: r.Title,
			State: string(r.State), By: r.CreatedBy, Time: r.Updated}
	})},
	{"artifact", journal.PrefixArtifact, decode(func(a runs.Artifact) Node {
		return Node{Kind: "artifact", ID: fmt.Sprintf("%s/%d", a.Run, a.Seq), Scope: a.Scope, Project: a.Project,
			Task: a.Task, Run: a.Run, Title: a.Name, By: a.By, Time: a.Time}
	})},
	{"decision", ledger.PrefixItem, decode(func(d decisions.Decision) Node {
		return Node{Kind: "decision", ID: d.ID, Scope: d.Scope, Project: d.Project, Title: d.Question,
			State: string(d.State), By: d.RaisedBy, Time: d.Raised}
	})},
	// A message's metadata: its subject, never its body.
	{"message", switchboard.PrefixInbox, decode(func(m coord.Message) Node {
		return Node{Kind: "message", ID: m.ID, To: m.To, Title: m.Subject, By: confirm.PersonaPrincipal(m.From.Address), Time: m.SentAt}
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

func decode[T any](node func(T) Node) func(store.KV) (Node, error) {
	return func(kv store.KV) (Node, error) {
		var v T
		if err := json.Unmarshal(kv.Value, &v); err != nil {
			return Node{}, fmt.Errorf("record %s: %w", kv.Key, err)
		}
		return node(v), nil
	}
}

// Query is one page's request.
type Query struct {
	// Words must each appear in a node's title or id (case folded); none
	// matches every node.
	Words string
	// Kinds narrows the walk to these kinds (none: every kind).
	Kinds []string
	// After is the previous page's Next ("" for the first page).
	After string
	// Limit is the page's size, read by paging.Limit (0: its default).
	Limit int
}

// Page is one page of nodes, and the token of the next page ("" at the
// end). A page may hold fewer than its limit of nodes and still have a
// Next: it stopped at its scan budget.
type Page = paging.Page[Node]

// Ask answers one page of q over the records of namespace ns in st.
func Ask(ctx context.Context, st store.Store, ns Namespace, q Query) (Page, error) {
	limit, err := paging.Limit(q.Limit)
	if err != nil {
		return Page{}, err
	}
	words := strings.Fields(strings.ToLower(q.Words))
	if len(words) > MaxWords {
		return Page{}, fmt.Errorf("%w (%d given)", ErrTooManyWord, len(words))
	}
	want, err := kindSet(q.Kinds)
	if err != nil {
		return Page{}, err
	}
	row, from, err := parseToken(q.After)
	if err != nil {
		return Page{}, err
	}
	out := Page{Items: []Node{}}
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
			if len(out.Items) == limit || scanned == MaxScan {
				out.Next = paging.Token("", from)
				return out, nil
			}
			kvs, more, err := st.Range(ctx, src.prefix, from, min(MaxScan-scanned, limit-len(out.Items)+readAhead))
			if err != nil {
				return Page{}, fmt.Errorf("graph %s: read %ss: %w", ns.Name, src.kind, err)
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
					return Page{}, err
				}
				if ns.holds(n) && matches(n, words) {
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

func matches(n Node, words []string) bool {
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
			return nil, fmt.Errorf("%w %q (one of %s)", ErrUnknownKind, k, strings.Join(Kinds(), ", "))
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
