package ledger

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/decisions"
	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
	"github.com/virgo-hub/virgo-tui/internal/termtext"
)

func openBook(t *testing.T) (*Book, store.Store) {
	t.Helper()
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "virgo.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clock := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	return NewBook(st, func() time.Time { clock = clock.Add(time.Second); return clock }), st
}

var (
	core      = decisions.Where{Scope: "work", Project: "core"}
	lead      = confirm.PersonaPrincipal("work/core/lead")
	secretary = confirm.PersonaPrincipal("root/secretary")
	henry     = confirm.Principal{Kind: confirm.PrincipalHuman, Name: "henry"}
	ask       = decisions.Raise{Question: "Which parser?", Options: []string{"hand-written", "generated"}, Context: "two drafts\nboth pass"}
)

func commit(t *testing.T, st store.Store, p store.Plan, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Commit(context.Background(), st); err != nil {
		t.Fatal(err)
	}
}

var nextID = 0

func raise(t *testing.T, b *Book, st store.Store) decisions.Decision {
	t.Helper()
	nextID++
	d, p, err := b.PlanRaise(context.Background(), fmt.Sprintf("d-%04x", nextID), core, lead, ask)
	commit(t, st, p, err)
	return d
}

func TestRaiseAndResolveRecordWhoDecided(t *testing.T) {
	ctx := context.Background()
	b, st := openBook(t)
	d := raise(t, b, st)
	if d.Seq != 1 || d.State != decisions.StateOpen || d.RaisedBy != lead || d.Target().String() != "decision:work/core/"+d.ID {
		t.Fatalf("raised %+v", d)
	}
	// A retry under the same correlation id (the same id) answers the
	// decision and writes nothing; the id reused otherwise is refused.
	if again, p, err := b.PlanRaise(ctx, d.ID, core, lead, ask); err != nil || !p.Empty() || again.ID != d.ID {
		t.Fatalf("raise again: %+v %v %v", again, p, err)
	}
	if _, _, err := b.PlanRaise(ctx, d.ID, core, secretary, ask); !errors.Is(err, decisions.ErrIDTaken) {
		t.Fatalf("the id reused by another raiser: %v", err)
	}
	// The secretary relays henry's explicit decision, carried by the
	// confirmation henry approved.
	res := decisions.Resolution{Option: "generated", Note: "relayed", ResolvedBy: secretary, DecidedBy: henry, ConfirmationID: "c-9"}
	_, p, err := b.PlanResolve(ctx, d.ID, res)
	commit(t, st, p, err)
	got, _, err := b.Get(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	r := got.Resolution
	if got.State != decisions.StateResolved || r == nil || r.Option != "generated" || r.DecidedBy != henry ||
		r.ResolvedBy != secretary || r.ConfirmationID != "c-9" || r.Time.IsZero() {
		t.Fatalf("stored %+v %+v", got, r)
	}
	again := decisions.Resolution{Option: "hand-written", ResolvedBy: lead, DecidedBy: lead}
	if _, _, err := b.PlanResolve(ctx, d.ID, again); !errors.Is(err, decisions.ErrAlreadyResolved) ||
		!strings.Contains(err.Error(), "human:henry") {
		t.Fatalf("second resolution: %v", err)
	}
}

// Footnotes ¹ ²: "Neither class self-originates a resolution." A model
// naming another decider without the confirmation that carries the
// decision is refused, and nothing is written.
func TestARelayWithoutTheAuthoritysConfirmationIsRefused(t *testing.T) {
	ctx := context.Background()
	b, st := openBook(t)
	d := raise(t, b, st)
	rev, _ := st.Rev(ctx)
	for name, res := range map[string]decisions.Resolution{
		"relay without confirmation": {Option: "generated", ResolvedBy: secretary, DecidedBy: henry},
		"no decider":                 {Option: "generated", ResolvedBy: secretary},
		"no resolver":                {Option: "generated", DecidedBy: henry},
	} {
		if _, _, err := b.PlanResolve(ctx, d.ID, res); err == nil {
			t.Errorf("%s: resolved", name)
		}
	}
	if _, _, err := b.PlanResolve(ctx, d.ID, decisions.Resolution{Option: "generated", ResolvedBy: secretary, DecidedBy: henry}); !errors.Is(err, decisions.ErrSelfOriginated) {
		t.Errorf("relay without confirmation: %v", err)
	}
	if _, _, err := b.PlanResolve(ctx, d.ID, decisions.Resolution{Option: "neither", ResolvedBy: lead, DecidedBy: lead}); !errors.Is(err, decisions.ErrNotAnOption) {
		t.Errorf("an option not offered: %v", err)
	}
	if now, _ := st.Rev(ctx); now != rev {
		t.Fatal("a refused resolution wrote")
	}
}

func TestHostileDecisionsAreRefusedByName(t *testing.T) {
	ctx := context.Background()
	b, _ := openBook(t)
	many := make([]string, decisions.MaxOptions+1)
	for i := range many {
		many[i] = strings.Repeat("o", i+1)
	}
	for name, tc := range map[string]struct {
		q    decisions.Raise
		want error
	}{
		"no question":     {decisions.Raise{Options: ask.Options}, decisions.ErrEmptyText},
		"escape":          {decisions.Raise{Question: "\x1b]0;owned\x07", Options: ask.Options}, termtext.ErrUnsafeChar},
		"long question":   {decisions.Raise{Question: strings.Repeat("q", decisions.MaxQuestion+1), Options: ask.Options}, termtext.ErrTooLong},
		"one option":      {decisions.Raise{Question: "q", Options: []string{"yes"}}, decisions.ErrTooFewOptions},
		"same option":     {decisions.Raise{Question: "q", Options: []string{"yes", "yes"}}, decisions.ErrDuplicateOptions},
		"empty option":    {decisions.Raise{Question: "q", Options: []string{"yes", ""}}, decisions.ErrEmptyText},
		"too many":        {decisions.Raise{Question: "q", Options: many}, decisions.ErrTooManyOptions},
		"bidi in context": {decisions.Raise{Question: "q", Options: ask.Options, Context: "\u2067x"}, termtext.ErrUnsafeChar},
	} {
		if _, _, err := b.PlanRaise(ctx, "d-x", core, lead, tc.q); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", name, err, tc.want)
		}
	}
	for _, bad := range []string{"", "D-1", "../d-1", "d-1/x"} {
		if _, _, err := b.Get(ctx, bad); !errors.Is(err, decisions.ErrBadRef) {
			t.Errorf("Get(%q) = %v", bad, err)
		}
	}
	if _, _, err := b.PlanRaise(ctx, "d-1", decisions.Where{Scope: "work", Project: "../x"}, lead, ask); !errors.Is(err, decisions.ErrBadRef) {
		t.Errorf("a climbing project: %v", err)
	}
}

func TestListPagesBySpanAndFilterInRaisingOrder(t *testing.T) {
	ctx := context.Background()
	b, st := openBook(t)
	var ids []string
	for range 11 {
		ids = append(ids, raise(t, b, st).ID)
	}
	for _, i := range []int{1, 9} {
		_, p, err := b.PlanResolve(ctx, ids[i], decisions.Resolution{Option: "generated", ResolvedBy: lead, DecidedBy: lead})
		commit(t, st, p, err)
	}
	// A coordinator's decision has no project; another scope's is apart.
	coordinator := confirm.PersonaPrincipal("work/coordinator")
	_, p, err := b.PlanRaise(ctx, "d-lane", decisions.Where{Scope: "work"}, coordinator, ask)
	commit(t, st, p, err)
	_, p, err = b.PlanRaise(ctx, "d-home", decisions.Where{Scope: "home", Project: "garden"}, confirm.PersonaPrincipal("home/garden/lead"), ask)
	commit(t, st, p, err)

	walk := func(span decisions.Span, f decisions.Filter) string {
		var seqs []string
		after := ""
		for {
			pg, err := b.List(ctx, span, f, after, 3)
			if err != nil {
				t.Fatal(err)
			}
			next := pg.Next
			for _, d := range pg.Items {
				seqs = append(seqs, d.ID)
			}
			if next == "" {
				return strings.Join(seqs, " ")
			}
			after = next
		}
	}
	pick := func(is ...int) string {
		var out []string
		for _, i := range is {
			out = append(out, ids[i])
		}
		return strings.Join(out, " ")
	}
	project := decisions.Span(core)
	if got := walk(project, decisions.Filter{State: decisions.StateOpen}); got != pick(0, 2, 3, 4, 5, 6, 7, 8, 10) {
		t.Errorf("open: %s", got)
	}
	if got := walk(project, decisions.Filter{State: decisions.StateResolved}); got != pick(1, 9) {
		t.Errorf("resolved: %s", got)
	}
	if got := walk(project, decisions.Filter{RaisedBy: coordinator}); got != "" {
		t.Errorf("the coordinator's in the project: %s", got)
	}
	if got := walk(decisions.Span{Scope: "work"}, decisions.Filter{RaisedBy: coordinator}); got != "d-lane" {
		t.Errorf("the coordinator's in the scope: %s", got)
	}
	if got := walk(decisions.Span{}, decisions.Filter{}); strings.Count(got, " ") != 12 || !strings.Contains(got, "d-home") {
		t.Errorf("everything: %s", got)
	}
	// A token of the whole installation's list, read under the project's,
	// never leaves the project.
	everything, _ := b.List(ctx, decisions.Span{}, decisions.Filter{}, "", 1)
	pg, err := b.List(ctx, project, decisions.Filter{}, everything.Next, 50)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range pg.Items {
		if d.Where != core {
			t.Errorf("a token of another list reached %s in %+v", d.ID, d.Where)
		}
	}
	if _, err := b.List(ctx, project, decisions.Filter{}, "../x", 3); !errors.Is(err, paging.ErrBadToken) {
		t.Errorf("hostile token: %v", err)
	}
	if pg, err := b.List(ctx, decisions.Span{Scope: "work", Project: "cor"}, decisions.Filter{}, "", 3); err != nil || len(pg.Items) != 0 {
		t.Errorf("project cor sees core's decisions: %v %v", pg, err)
	}
}
