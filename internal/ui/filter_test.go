package ui

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/ui/styles"
)

// visibleIDs is the ids of a table's visible rows, in order.
func visibleIDs[T any](t *Table[T]) []string {
	var ids []string
	for _, r := range t.visible() {
		ids = append(ids, r.id)
	}
	return ids
}

// firstDiff is the first index where a and b differ, -1 when equal.
func firstDiff(a, b []string) int {
	for i := range max(len(a), len(b)) {
		if i >= len(a) || i >= len(b) || a[i] != b[i] {
			return i
		}
	}
	return -1
}

// freshFilter is what a new presence view holding ps, sorted and filtered
// like tb, shows: the truth a table that recalls earlier matches must equal.
func freshFilter(tb *Table[Persona], ps []Persona) []string {
	v := newPresenceView(newStyles(styles.Default()))
	v.setSize(100, 20)
	v.load(slices.Clone(ps), t0)
	v.table.SortBy(tb.Sort())
	v.table.SetFilter(tb.Filter())
	return visibleIDs(v.table)
}

// checkMatches checks that the rows marked as matching are exactly the
// visible ones, and that the recalled filters stay within their bound.
func checkMatches[T any](t *testing.T, tb *Table[T], step int) {
	t.Helper()
	vis := map[string]bool{}
	for _, r := range tb.visible() {
		vis[r.id] = true
	}
	for id, r := range tb.rows {
		if r.match != vis[id] {
			t.Fatalf("step %d: row %s marked match=%v, visible=%v", step, id, r.match, vis[id])
		}
	}
	if len(tb.recent) > recentFilters {
		t.Fatalf("step %d: %d recent filters held, the bound is %d", step, len(tb.recent), recentFilters)
	}
}

// A backspace restores the matches of the filter it returns to, and rows
// that change between the keystroke and the backspace are shown as a fresh
// filter shows them: added, changed into and out of the match, removed.
func TestFilterBackspaceAfterRowsChanged(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 1))
	snap := demoSnapshot()
	snap.Personas = personas(1000, rng)
	m := console(t, &hubDouble{snap: snap}, 120, 40)
	press(t, m, "/", "t", "a", "s", "k", "space", "1")
	tb := m.presence.table
	before := visibleIDs(tb)
	press(t, m, "2", "backspace")
	if got := visibleIDs(tb); !slices.Equal(got, before) {
		t.Fatalf("backspace to %q shows %d rows, before the 2 it showed %d", tb.Filter(), len(got), len(before))
	}
	press(t, m, "2")
	if tb.Filter() != "task 12" {
		t.Fatalf("filter %q, want %q", tb.Filter(), "task 12")
	}

	ps := map[string]Persona{}
	for _, p := range snap.Personas {
		ps[p.ID] = p
	}
	var gain, lose, gone string // rows outside "task 1", inside it, inside it
	for _, p := range snap.Personas {
		in := strings.Contains(strings.ToLower(p.Summary), "task 1")
		switch {
		case !in && gain == "":
			gain = p.ID
		case in && lose == "":
			lose = p.ID
		case in && gone == "" && !strings.Contains(p.Summary, "task 12"):
			gone = p.ID
		}
	}
	g, l := ps[gain], ps[lose]
	g.Summary, l.Summary = "task 177", "task 3"
	added := Persona{ID: "p999999", Address: "work/late/deputy", Name: "Late", Class: "coder-deputy",
		Generation: 1, State: PresenceIdle, Summary: "task 100", LastSeen: t0}
	ps[gain], ps[lose], ps[added.ID] = g, l, added
	delete(ps, gone)
	m.Update(batchMsg{changes: []Change{
		{Seq: 100, Kind: PersonaChanged, Persona: g},
		{Seq: 101, Kind: PersonaChanged, Persona: l},
		{Seq: 102, Kind: PersonaChanged, Persona: added},
		{Seq: 103, Kind: PersonaRemoved, ID: gone},
	}})
	press(t, m, "backspace")

	all := make([]Persona, 0, len(ps))
	for _, p := range ps {
		all = append(all, p)
	}
	want := freshFilter(tb, all)
	got := visibleIDs(tb)
	if i := firstDiff(got, want); i >= 0 {
		t.Fatalf("after rows changed, backspace to %q shows %d rows, a fresh filter %d; they differ from row %d", tb.Filter(), len(got), len(want), i)
	}
	for _, id := range []string{gain, added.ID} {
		if !slices.Contains(got, id) {
			t.Fatalf("%s now matches %q but is not shown", id, tb.Filter())
		}
	}
	for _, id := range []string{lose, gone} {
		if slices.Contains(got, id) {
			t.Fatalf("%s no longer matches %q (or is gone) but is shown", id, tb.Filter())
		}
	}
	checkMatches(t, tb, 0)
}

// Typing a letter and deleting it again rescans no row: both filters'
// matches are recalled, the very slices shown before.
func TestFilterBackAndForthRecallsMatches(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 2))
	v := newPresenceView(newStyles(styles.Default()))
	v.setSize(100, 20)
	v.load(personas(2000, rng), t0)
	for _, q := range []string{"p", "pr", "pro", "proj", "proj0"} {
		v.table.SetFilter(q)
	}
	short := v.table.filtered
	v.table.SetFilter("proj01")
	long := v.table.filtered
	for i := range 3 {
		v.table.SetFilter("proj0")
		if &v.table.filtered[0] != &short[0] || len(v.table.filtered) != len(short) {
			t.Fatalf("round %d: backspace to proj0 rebuilt its matches", i)
		}
		v.table.SetFilter("proj01")
		if &v.table.filtered[0] != &long[0] || len(v.table.filtered) != len(long) {
			t.Fatalf("round %d: retyping proj01 rebuilt its matches", i)
		}
	}
	checkMatches(t, v.table, 0)
}

// Any sequence of edits to the filter, row changes, removals, bulk loads
// and sorts shows what a fresh table with the same rows, sort and filter
// shows.
func TestFilterRecallMatchesFreshFilter(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 3))
	ps := personas(300, rng)
	v := newPresenceView(newStyles(styles.Default()))
	v.setSize(100, 20)
	v.load(slices.Clone(ps), t0)
	live := map[string]Persona{}
	for _, p := range ps {
		live[p.ID] = p
	}
	const letters = "proj0123 taskd"
	q := ""
	for step := range 1500 {
		switch op := rng.IntN(20); {
		case op < 8: // type a letter
			q += string(letters[rng.IntN(len(letters))])
		case op < 13: // backspace
			if q != "" {
				q = q[:len(q)-1]
			}
		case op == 13: // clear, or paste a filter
			q = []string{"", "proj00", "task 1", "idle"}[rng.IntN(4)]
		case op < 17: // a row changes, or a new one arrives
			p := ps[rng.IntN(len(ps))]
			if rng.IntN(4) == 0 {
				p.ID = fmt.Sprintf("n%06d", step)
			}
			p.Summary = fmt.Sprintf("task %d", rng.IntN(200))
			p.State = []PresenceState{PresenceActive, PresenceIdle, PresenceStale}[rng.IntN(3)]
			live[p.ID] = p
			v.upsert(p, t0)
		case op == 17: // a row goes
			id := ps[rng.IntN(len(ps))].ID
			delete(live, id)
			v.table.Delete(id)
		case op == 18: // a new order
			v.table.SortBy(rng.IntN(len(presenceColumns)), rng.IntN(2) == 0)
		default: // a fresh snapshot: a bulk load
			all := make([]Persona, 0, len(live))
			for _, p := range live {
				all = append(all, p)
			}
			v.load(all, t0)
		}
		v.table.SetFilter(q)
		all := make([]Persona, 0, len(live))
		for _, p := range live {
			all = append(all, p)
		}
		if got, want := visibleIDs(v.table), freshFilter(v.table, all); firstDiff(got, want) >= 0 {
			t.Fatalf("step %d, filter %q: %d rows shown, a fresh filter shows %d; they differ from row %d", step, q, len(got), len(want), firstDiff(got, want))
		}
		checkMatches(t, v.table, step)
	}
}
