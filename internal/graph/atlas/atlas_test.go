package atlas

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/coord/switchboard"
	"github.com/virgo-hub/virgo-tui/internal/decisions"
	"github.com/virgo-hub/virgo-tui/internal/decisions/ledger"
	"github.com/virgo-hub/virgo-tui/internal/graph"
	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/quota"
	"github.com/virgo-hub/virgo-tui/internal/runs"
	"github.com/virgo-hub/virgo-tui/internal/runs/journal"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
	"github.com/virgo-hub/virgo-tui/internal/tasks"
	"github.com/virgo-hub/virgo-tui/internal/tasks/board"
)

var (
	deputy = confirm.PersonaPrincipal("work/core/deputy")
	lead   = confirm.PersonaPrincipal("work/core/lead")
	other  = confirm.PersonaPrincipal("work/web/lead")
)

// installation is a real bbolt file with records in two projects of one
// scope and in another scope.
func installation(t *testing.T) store.Store {
	t.Helper()
	ctx := context.Background()
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "virgo.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	rb, db := journal.NewBook(st, nil), ledger.NewBook(st, nil)
	commit := func(p store.Plan, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Commit(ctx, st); err != nil {
			t.Fatal(err)
		}
	}
	run := func(id string, task runs.TaskRef, by confirm.Principal, title string) {
		_, p, err := rb.PlanCreate(ctx, id, task, by, title)
		commit(p, err)
		_, p, err = rb.PlanAdvance(ctx, id, by, runs.StateRunning, "")
		commit(p, err)
		_, p, err = rb.PlanArtifact(ctx, id, by, runs.Artifact{Name: title + " report", SHA256: "sha256:" + strings.Repeat("a", 64), Path: "out/" + id})
		commit(p, err)
	}
	for _, tk := range []tasks.Task{
		{ID: "t-assigned", Scope: "work", Project: "core", Title: "parser for the deputy",
			Assignee: tasks.Party{ID: "g-deputy", Address: "work/core/deputy"}, By: tasks.Party{ID: "g-lead", Address: "work/core/lead"}},
		{ID: "t-lead", Scope: "work", Project: "core", Title: "release", Assignee: tasks.Party{ID: "g-lead2", Address: "work/core/lead"},
			By: tasks.Party{ID: "human:henry"}},
	} {
		_, p, err := board.PlanAssign(ctx, st, tk, time.Now())
		commit(p, err)
	}
	run("r-assigned", runs.TaskRef{Scope: "work", Project: "core", Task: "t-assigned"}, deputy, "parser build")
	run("r-lead", runs.TaskRef{Scope: "work", Project: "core", Task: "t-lead"}, lead, "release parser")
	run("r-web", runs.TaskRef{Scope: "work", Project: "web", Task: "t-web"}, other, "web parser")
	run("r-home", runs.TaskRef{Scope: "home", Project: "garden", Task: "t-home"}, confirm.PersonaPrincipal("home/garden/lead"), "garden parser")
	ask := decisions.Raise{Question: "Which parser?", Options: []string{"a", "b"}}
	_, p, err := db.PlanRaise(ctx, "d-deputy", decisions.Where{Scope: "work", Project: "core"}, deputy, ask)
	commit(p, err)
	_, p, err = db.PlanRaise(ctx, "d-lead", decisions.Where{Scope: "work", Project: "core"}, lead, ask)
	commit(p, err)
	_, p, err = db.PlanRaise(ctx, "d-lane", decisions.Where{Scope: "work"}, confirm.PersonaPrincipal("work/coordinator"), ask)
	commit(p, err)
	cb := switchboard.New(st, nil, quota.Limits{})
	send := func(to, from, subject string) {
		_, p, err := cb.PlanSend(ctx, coord.Message{To: to, From: coord.Sender{Address: from}, Subject: subject, Body: "secret body"})
		commit(p, err)
	}
	send("work/core/lead", "work/core/deputy", "parser status")
	send("work/core/deputy", "work/web/lead", "web parser question")
	return st
}

// all walks every page of q and returns the nodes as kind:id.
func all(t *testing.T, st store.Store, ns graph.Namespace, q graph.Query) []string {
	t.Helper()
	var out []string
	for pages := 0; ; pages++ {
		page, err := Ask(context.Background(), st, ns, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range page.Items {
			if n.To != "" {
				n.ID += ">" + n.To // a message's id is its recipient's inbox's
			}
			out = append(out, n.Kind+":"+n.ID)
		}
		if page.Next == "" {
			return out
		}
		if pages > 100 {
			t.Fatal("no end of pages")
		}
		q.After = page.Next
	}
}

func TestAQueryNeverCrossesTheNamespace(t *testing.T) {
	st := installation(t)
	for _, tc := range []struct {
		name string
		ns   graph.Namespace
		want string
	}{
		{"a project's lead", graph.Namespace{Name: "virgo/work/core/lead", Scope: "work", Project: "core", Persona: lead},
			"task:t-assigned task:t-lead run:r-assigned run:r-lead artifact:r-assigned/1 artifact:r-lead/1 decision:d-deputy decision:d-lead message:m-1.work.core.lead>work/core/lead"},
		{"a deputy: its assigned task and its own decisions", graph.Namespace{Name: "virgo/work/core/deputy", Scope: "work", Project: "core",
			Assigned: map[string]bool{"t-assigned": true}, Persona: deputy},
			"task:t-assigned run:r-assigned artifact:r-assigned/1 decision:d-deputy message:m-1.work.core.deputy>work/core/deputy message:m-1.work.core.lead>work/core/lead"},
		{"a scope-wide coordinator", graph.Namespace{Name: "virgo/work/coordinator", Scope: "work", Persona: confirm.PersonaPrincipal("work/coordinator")},
			"task:t-assigned task:t-lead run:r-assigned run:r-lead run:r-web artifact:r-assigned/1 artifact:r-lead/1 artifact:r-web/1 decision:d-deputy decision:d-lane decision:d-lead"},
	} {
		got := all(t, st, tc.ns, graph.Query{Limit: 2})
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, strings.Join(got, " "), tc.want)
		}
	}
	root := all(t, st, graph.Namespace{Name: "virgo/root/secretary", Persona: confirm.PersonaPrincipal("root/secretary")}, graph.Query{Limit: 500})
	if len(root) != 13 {
		t.Errorf("root sees %d records, want all 13 but the messages it is no party of: %v", len(root), root)
	}
}

func TestWordsAndKindsNarrowTheWalk(t *testing.T) {
	st := installation(t)
	ns := graph.Namespace{Name: "virgo/work/core/lead", Scope: "work", Project: "core", Persona: lead}
	if got := strings.Join(all(t, st, ns, graph.Query{Words: "Parser RELEASE", Limit: 10}), " "); got != "run:r-lead artifact:r-lead/1" {
		t.Errorf("words: %s", got)
	}
	if got := strings.Join(all(t, st, ns, graph.Query{Words: "report", Kinds: []string{"artifact"}, Limit: 10}), " "); got != "artifact:r-assigned/1 artifact:r-lead/1" {
		t.Errorf("kinds: %s", got)
	}
	if _, err := Ask(context.Background(), st, ns, graph.Query{Kinds: []string{"secret"}, Limit: 1}); !errors.Is(err, graph.ErrUnknownKind) {
		t.Errorf("unknown kind: %v", err)
	}
	if _, err := Ask(context.Background(), st, ns, graph.Query{Limit: paging.MaxLimit + 1}); !errors.Is(err, paging.ErrBadLimit) {
		t.Errorf("oversized page: %v", err)
	}
	if _, err := Ask(context.Background(), st, ns, graph.Query{Words: strings.Repeat("w ", graph.MaxWords+1), Limit: 1}); !errors.Is(err, graph.ErrTooManyWord) {
		t.Errorf("too many words: %v", err)
	}
}

func TestForgedTokensAreRefused(t *testing.T) {
	st := installation(t)
	ns := graph.Namespace{Name: "virgo/work/core/lead", Scope: "work", Project: "core", Persona: lead}
	for _, forged := range []string{"x", "0-!!", "9-AAAA",
		paging.Token("", "confirm/audit/"), // a key under no row of the graph
		paging.Token("", "tasks/"),         // above the task row, not in it
		strings.Repeat("A", paging.MaxToken+1)} {
		if _, err := Ask(context.Background(), st, ns, graph.Query{After: forged, Limit: 5}); !errors.Is(err, paging.ErrBadToken) {
			t.Errorf("token %q: %v, want %v", forged, err, paging.ErrBadToken)
		}
	}
}

// The graph's token is the page form's: a row is found by its prefix, so
// no row's prefix may hold another's, or a token would continue the
// wrong row.
func TestNoRowPrefixHoldsAnother(t *testing.T) {
	for i, a := range sources {
		for j, b := range sources {
			if i != j && strings.HasPrefix(b.prefix, a.prefix) {
				t.Errorf("row %s's prefix %q holds row %s's %q", a.kind, a.prefix, b.kind, b.prefix)
			}
		}
	}
}

// A page stops at its scan budget with what it has and a token: the cost
// of a query that matches little is bounded too.
func TestAPageStopsAtItsScanBudget(t *testing.T) {
	ctx := context.Background()
	st := installation(t)
	rb := journal.NewBook(st, nil)
	// Runs of distinct tasks, so that their plans join into a few
	// transactions (a commit each would be slow), each within the
	// store's limits.
	var batch store.Plan
	for i := range graph.MaxScan + 10 {
		_, p, err := rb.PlanCreate(ctx, fmt.Sprintf("r-bulk-%05d", i), runs.TaskRef{Scope: "home", Project: "garden", Task: fmt.Sprint("t-", i)}, lead, "bulk")
		if err != nil {
			t.Fatal(err)
		}
		if len(batch.Ops)+len(p.Ops) > store.MaxTxnOps || len(batch.Conds)+len(p.Conds) > store.MaxTxnOps {
			if _, err := batch.Commit(ctx, st); err != nil {
				t.Fatal(err)
			}
			batch = store.Plan{}
		}
		batch.Join(p)
		if i == graph.MaxScan+9 {
			if _, err := batch.Commit(ctx, st); err != nil {
				t.Fatal(err)
			}
			batch = store.Plan{}
		}
	}
	ns := graph.Namespace{Name: "virgo/work/core/lead", Scope: "work", Project: "core", Persona: lead}
	page, err := Ask(ctx, st, ns, graph.Query{Kinds: []string{"run"}, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if page.Next == "" || len(page.Items) > 10 {
		t.Fatalf("first page: %d nodes, next %q", len(page.Items), page.Next)
	}
	if got := all(t, st, ns, graph.Query{Kinds: []string{"run"}, Limit: 10}); strings.Join(got, " ") != "run:r-assigned run:r-lead" {
		t.Fatalf("walk: %v", got)
	}
}
