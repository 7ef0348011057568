// Package graph answers query_graph_context: a bounded, read-only query
// over the collaboration records of one persona's graph namespace — tasks,
// runs, artifacts, decisions, messages' metadata — a page at a time, never
// crossing the namespace.
//
// The package holds the node, the namespace and its rule (Holds), the
// query and its bounds as values; graph/atlas walks the stored records.
// A page is the one page
// form of every list (internal/paging); its token names only a position,
// the last key read, whose row is the one whose prefix holds it: a forged
// token can skip records, never reach one outside the namespace, since
// every record is filtered on every page, and a key under no row's prefix
// is refused.
package graph

import (
	"errors"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/paging"
)

// The bounds of one query; a page's size is paging's (paging.Limit).
const (
	// MaxScan is the most records one page reads before it answers what it
	// has with a continuation: a query's cost is bounded whatever it asks.
	MaxScan = 5000
	// MaxWords bounds the words of a query.
	MaxWords = 16
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

// Holds reports whether n lies in the namespace.
func (ns Namespace) Holds(n Node) bool {
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
