package decisions

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/termtext"
)

func openBook(t *testing.T) (*Book, store.Store) {
	t.Helper()
	st, err := store.OpenBolt(filepath.Join(t.TempDir(), "virgo.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clock := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	return NewBook(st, func() time.Time { clock = clock.Add(time.Second); return clock }), st
}

var (
	core      = Where{Scope: "work", Project: "core"}
	lead      = confirm.PersonaPrincipal("work/core/lead")
	secretary = confirm.PersonaPrincipal("root/secretary")
	henry     = confirm.Principal{Kind: confirm.PrincipalHuman, Name: "henry"}
	ask       = Raise{Question: "Which parser?", Options: []string{"hand-written", "generated"}, Context: "two drafts\nboth pass"}
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

func raise(t *testing.T, b *Book, st store.Store) Decision {
	t.Helper()
	d, p, err := b.PlanRaise(context.Background(), core, lead, ask)
	commit(t, st, p, err)
	return d
}

func TestRaiseAndResolveRecordWhoDecided(t *testing.T) {
	ctx := context.Background()
	b, st := openBook(t)
	d := raise(t, b, st)
	if d.String() != "work/core/d-1" || d.State != StateOpen || d.RaisedBy != lead {
		t.Fatalf("raised %+v", d)
	}
	if next, err := b.Next(ctx, core); err != nil || next.ID != "d-2" {
		t.Fatalf("Next = %v, %v", next, err)
	}
	// The secretary relays henry's explicit decision, carried by the
	// confirmation henry approved.
	res := Resolution{Option: "generated", Note: "relayed", ResolvedBy: secretary, DecidedBy: henry, ConfirmationID: "c-9"}
	_, p, err := b.PlanResolve(ctx, d.Ref, res)
	commit(t, st, p, err)
	got, _, err := b.Get(ctx, d.Ref)
	if err != nil {
		t.Fatal(err)
	}
	r := got.Resolution
	if got.State != StateResolved || r == nil || r.Option != "generated" || r.DecidedBy != henry ||
		r.ResolvedBy != secretary || r.ConfirmationID != "c-9" || r.Time.IsZero() {
		t.Fatalf("stored %+v %+v", got, r)
	}
	again := Resolution{Option: "hand-written", ResolvedBy: lead, DecidedBy: lead}
	if _, _, err := b.PlanResolve(ctx, d.Ref, again); !errors.Is(err, ErrAlreadyResolved) ||
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
	for name, res := range map[string]Resolution{
		"relay without confirmation": {Option: "generated", ResolvedBy: secretary, DecidedBy: henry},
		"no decider":                 {Option: "generated", ResolvedBy: secretary},
		"no resolver":                {Option: "generated", DecidedBy: henry},
	} {
		if _, _, err := b.PlanResolve(ctx, d.Ref, res); err == nil {
			t.Errorf("%s: resolved", name)
		}
	}
	if _, _, err := b.PlanResolve(ctx, d.Ref, Resolution{Option: "generated", ResolvedBy: secretary, DecidedBy: henry}); !errors.Is(err, ErrSelfOriginated) {
		t.Errorf("relay without confirmation: %v", err)
	}
	if _, _, err := b.PlanResolve(ctx, d.Ref, Resolution{Option: "neither", ResolvedBy: lead, DecidedBy: lead}); !errors.Is(err, ErrNotAnOption) {
		t.Errorf("an option not offered: %v", err)
	}
	if now, _ := st.Rev(ctx); now != rev {
		t.Fatal("a refused resolution wrote")
	}
}

func TestHostileDecisionsAreRefusedByName(t *testing.T) {
	ctx := context.Background()
	b, _ := openBook(t)
	many := make([]string, MaxOptions+1)
	for i := range many {
		many[i] = strings.Repeat("o", i+1)
	}
	for name, tc := range map[string]struct {
		q    Raise
		want error
	}{
		"no question":     {Raise{Options: ask.Options}, ErrEmptyText},
		"escape":          {Raise{Question: "\x1b]0;owned\x07", Options: ask.Options}, termtext.ErrUnsafeChar},
		"long question":   {Raise{Question: strings.Repeat("q", MaxQuestion+1), Options: ask.Options}, termtext.ErrTooLong},
		"one option":      {Raise{Question: "q", Options: []string{"yes"}}, ErrTooFewOptions},
		"same option":     {Raise{Question: "q", Options: []string{"yes", "yes"}}, ErrDuplicateOptions},
		"empty option":    {Raise{Question: "q", Options: []string{"yes", ""}}, ErrEmptyText},
		"too many":        {Raise{Question: "q", Options: many}, ErrTooManyOptions},
		"bidi in context": {Raise{Question: "q", Options: ask.Options, Context: "\u2067x"}, termtext.ErrUnsafeChar},
	} {
		if _, _, err := b.PlanRaise(ctx, core, lead, tc.q); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", name, err, tc.want)
		}
	}
	for _, bad := range []string{"work/core/d-0", "work/core/x-1", "work/core", "work/../d-1", "work/core/d-01"} {
		if _, err := ParseRef(bad); !errors.Is(err, ErrBadRef) {
			t.Errorf("ParseRef(%q) = %v", bad, err)
		}
	}
	if _, err := ParseWhere("work"); !errors.Is(err, ErrBadRef) {
		t.Errorf("ParseWhere(work) = %v", err)
	}
}

func TestListPagesByStateInRaisingOrder(t *testing.T) {
	ctx := context.Background()
	b, st := openBook(t)
	for range 11 {
		raise(t, b, st)
	}
	for _, id := range []string{"d-2", "d-10"} {
		_, p, err := b.PlanResolve(ctx, Ref{Scope: "work", Project: "core", ID: id}, Resolution{Option: "generated", ResolvedBy: lead, DecidedBy: lead})
		commit(t, st, p, err)
	}
	walk := func(state State) string {
		var ids []string
		after := ""
		for {
			page, next, err := b.List(ctx, core, state, after, 3)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range page {
				ids = append(ids, d.ID)
			}
			if next == "" {
				return strings.Join(ids, " ")
			}
			after = next
		}
	}
	if got := walk(StateOpen); got != "d-1 d-3 d-4 d-5 d-6 d-7 d-8 d-9 d-11" {
		t.Errorf("open: %s", got)
	}
	if got := walk(StateResolved); got != "d-2 d-10" {
		t.Errorf("resolved: %s", got)
	}
	if got := walk(""); !strings.HasPrefix(got, "d-1 d-2 d-3") || strings.Count(got, " ") != 10 {
		t.Errorf("all: %s", got)
	}
	if _, _, err := b.List(ctx, core, "", "d-1/../../x", 3); !errors.Is(err, ErrBadCursor) {
		t.Errorf("hostile cursor: %v", err)
	}
	other := Where{Scope: "work", Project: "cor"}
	if page, _, err := b.List(ctx, other, "", "", 3); err != nil || len(page) != 0 {
		t.Errorf("project cor sees core's decisions: %v %v", page, err)
	}
}
