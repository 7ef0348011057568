package ui

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/virgo-hub/virgo-tui/internal/ui/styles"
)

// personas makes n personas with spread-out fields.
func personas(n int, rng *rand.Rand) []Persona {
	states := []PresenceState{PresenceActive, PresenceIdle, PresenceStale, PresenceOffline}
	ps := make([]Persona, n)
	for i := range ps {
		ps[i] = Persona{
			ID: fmt.Sprintf("p%06d", i), Address: fmt.Sprintf("work/proj%05d/deputy", i), Name: fmt.Sprintf("Star%06d", i),
			Class: "coder-deputy", Generation: 1 + i%3, State: states[rng.IntN(len(states))], Activity: "coding",
			Summary: "task " + fmt.Sprint(rng.IntN(1000)), LastSeen: t0.Add(-time.Duration(rng.IntN(86400)) * time.Second),
		}
	}
	return ps
}

// The issue: "the selection stays on the same persona while 1,000 rows
// update" — here with the order shuffled by every batch.
func TestSelectionSurvivesThousandRowsUpdating(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	snap := demoSnapshot()
	snap.Personas = personas(1000, rng)
	m := console(t, &hubDouble{snap: snap}, 120, 40)
	press(t, m, "s", "s", "s", "s", "s", "s", "s") // sort by SEEN: every update moves rows
	if col, _ := m.presence.table.Sort(); col != pcSeen {
		t.Fatalf("sort column %d, want SEEN", col)
	}
	for range 10 {
		press(t, m, "j")
	}
	want := m.presence.table.Selected()
	line := m.presence.table.selOff
	seq := uint64(100)
	for round := range 20 {
		changes := make([]Change, 0, 1000)
		for _, i := range rng.Perm(1000) {
			p := snap.Personas[i]
			p.LastSeen = t0.Add(-time.Duration(rng.IntN(86400)) * time.Second)
			p.State = []PresenceState{PresenceActive, PresenceIdle}[rng.IntN(2)]
			seq++
			changes = append(changes, Change{Seq: seq, Kind: PersonaChanged, Persona: p})
		}
		m.Update(batchMsg{changes: changes[:round*50+1]})
		m.Update(batchMsg{changes: changes[round*50+1:]})
		if got := m.presence.table.Selected(); got != want {
			t.Fatalf("round %d: selection moved from %s to %s", round, want, got)
		}
		tb := m.presence.table
		tb.ensure()
		if edge := tb.selPos < line || tb.selPos > tb.Len()-tb.PageSize()+line; !edge && tb.selOff != line {
			t.Fatalf("round %d: the selected row moved from screen line %d to %d", round, line, tb.selOff)
		}
		line = tb.selOff // only the list's edges may move it
		sel, _ := m.presence.table.Get(want)
		if !strings.Contains(plain(m), "▸ "+sel.Address) {
			t.Fatalf("round %d: the selected persona is not shown selected", round)
		}
		assertSorted(t, m.presence.table)
	}
}

// assertSorted checks the incremental order against a full sort.
func assertSorted[T any](t *testing.T, tb *Table[T]) {
	t.Helper()
	tb.ensure()
	got := slices.Clone(tb.sorted)
	if !slices.IsSortedFunc(got, tb.less) {
		t.Fatal("the incrementally maintained order is not sorted")
	}
	if len(got) != len(tb.rows) {
		t.Fatalf("order holds %d rows, the table %d", len(got), len(tb.rows))
	}
}

func TestIncrementalUpdatesKeepOrderAndFilter(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	st := newStyles(styles.Default())
	v := newPresenceView(st)
	v.setSize(100, 20)
	ps := personas(300, rng)
	v.load(ps, t0)
	v.table.SortBy(pcSeen, false)
	v.table.SetFilter("idle")
	for range 2000 {
		i := rng.IntN(len(ps))
		switch rng.IntN(10) {
		case 0:
			v.table.Delete(ps[i].ID)
		default:
			ps[i].State = []PresenceState{PresenceActive, PresenceIdle, PresenceStale}[rng.IntN(3)]
			ps[i].LastSeen = t0.Add(-time.Duration(rng.IntN(1000)) * time.Second)
			v.upsert(ps[i], t0)
		}
	}
	assertSorted(t, v.table)
	var want []string
	for _, r := range v.table.sorted {
		if strings.Contains(r.hay, "idle") {
			want = append(want, r.id)
		}
	}
	var got []string
	for _, r := range v.table.filtered {
		got = append(got, r.id)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("filtered view drifted: %d rows, want %d", len(got), len(want))
	}
	v.table.SetFilter("idl") // widening rescans
	v.table.SetFilter("idle")
	if v.table.Len() != len(want) {
		t.Fatalf("refilter gives %d rows, want %d", v.table.Len(), len(want))
	}
}

func TestChangedCellsAreHighlightedBriefly(t *testing.T) {
	m := console(t, &hubDouble{snap: demoSnapshot()}, 120, 40)
	p := demoSnapshot().Personas[2] // work/core/lead, not selected
	p.Activity = "merging"
	m.Update(batchMsg{changes: []Change{{Seq: 11, Kind: PersonaChanged, Persona: p}}})
	changed := m.styles.changed.pre
	if !strings.Contains(m.Render(), changed+"merging") {
		t.Fatal("the changed cell is not highlighted")
	}
	if strings.Contains(m.Render(), changed+"Porrima") {
		t.Fatal("an unchanged cell is highlighted")
	}
	setClock(m, t0.Add(1600*time.Millisecond))
	if strings.Contains(m.Render(), changed+"merging") {
		t.Fatal("the highlight outlived 1.5 s")
	}
}

func TestCellsTruncateWithEllipsis(t *testing.T) {
	var b strings.Builder
	writeCell(&b, "relaying the owner's decisions", 10, Column{}, true)
	if got := b.String(); got != "relaying …" || ansi.StringWidth(got) != 10 {
		t.Errorf("truncated cell %q", got)
	}
	b.Reset()
	writeCell(&b, "42", 5, Column{Right: true}, true)
	if b.String() != "   42" {
		t.Errorf("right-aligned cell %q", b.String())
	}
	b.Reset()
	writeCell(&b, "星座名前です", 7, Column{}, true)
	if w := ansi.StringWidth(b.String()); w != 7 {
		t.Errorf("wide text cell is %d cells, want 7: %q", w, b.String())
	}
}

func TestLayoutRespectsMinMax(t *testing.T) {
	for _, cols := range [][]Column{presenceColumns, queueColumns} {
		for _, w := range []int{minWidth - 2, 70, 78, 118, 200} {
			ws := layoutColumns(cols, w, nil)
			sum := -1
			for i, x := range ws {
				c := cols[i]
				if x == 0 && c.Drop == 0 {
					t.Errorf("width %d: column %s hidden, but it has no drop rank", w, c.Title)
				}
				if x > 0 {
					sum += x + 1
				}
				if x > 0 && (x < c.Min || c.Max > 0 && x > c.Max) {
					t.Errorf("width %d: column %s is %d, outside %d..%d", w, c.Title, x, c.Min, c.Max)
				}
			}
			if sum > w {
				t.Errorf("width %d: columns take %d", w, sum)
			}
			if w >= 78 && slices.Contains(ws, 0) {
				t.Errorf("width %d: a column is hidden at 80 columns: %v", w, ws)
			}
		}
	}
}

// Below 80 columns the columns with a drop rank go, highest first.
func TestNarrowTerminalHidesColumnsByRank(t *testing.T) {
	ws := layoutColumns(queueColumns, minWidth-2, nil)
	if ws[qcAge] != 0 || ws[qcTool] != 0 || ws[qcShape] != 0 || ws[qcRequester] == 0 || ws[qcRouted] == 0 ||
		ws[qcLeft] == 0 || ws[qcTarget] < queueColumns[qcTarget].Min {
		t.Errorf("queue at %d columns: widths %v; want age, tool and shape hidden, the target wide", minWidth, ws)
	}
	if ws := layoutColumns(queueColumns, 70, nil); ws[qcShape] == 0 || ws[qcTool] != 0 {
		t.Errorf("queue at 72 columns: widths %v; want the shape kept before the tool", ws)
	}
	ws = layoutColumns(presenceColumns, minWidth-2, nil)
	if ws[pcSummary] != 0 || ws[pcActivity] != 0 || ws[pcClass] != 0 || ws[pcName] == 0 {
		t.Errorf("presence at %d columns: widths %v; want summary, activity and class hidden", minWidth, ws)
	}
}

func TestEmptyQueueAndResize(t *testing.T) {
	snap := demoSnapshot()
	snap.Confirmations = nil
	m := console(t, &hubDouble{snap: snap}, 80, 24)
	press(t, m, "2", "a", "d")
	if !strings.Contains(plain(m), "no pending confirmations") || !strings.Contains(plain(m), "nothing to decide") {
		t.Fatalf("empty queue:\n%s", plain(m))
	}
	m.Update(resizeMsg(100, 30))
	if n := len(strings.Split(plain(m), "\n")); n != 30 {
		t.Fatalf("after a resize to 100×30 the screen has %d lines", n)
	}
}

func TestBackgroundIndexSkipsChangedRows(t *testing.T) {
	m := console(t, &hubDouble{snap: demoSnapshot()}, 80, 24)
	cmd := m.presence.table.indexCmd()
	if cmd == nil {
		t.Fatal("no index command after a snapshot")
	}
	msg := cmd() // built off the UI thread
	p := demoSnapshot().Personas[0]
	p.Summary = "Changed Meanwhile"
	m.Update(batchMsg{changes: []Change{{Seq: 11, Kind: PersonaChanged, Persona: p}}})
	m.Update(msg)
	r := m.presence.table.rows["p1"]
	if r.hasHay {
		t.Fatal("an index built from the old record was installed on a changed row")
	}
	press(t, m, "/")
	typeText(t, m, "meanwhile")
	if m.presence.table.Len() != 1 {
		t.Fatalf("filter over a mixed index shows %d rows, want 1", m.presence.table.Len())
	}
}

// "truncate the middle of long targets, never their end".
func TestMiddleTruncationKeepsBothEnds(t *testing.T) {
	for _, c := range []struct {
		text string
		w    int
		want string
	}{
		{"path:memory/credentials/rotation.md", 19, "path:memo…tation.md"},
		{"work/core/deputy", 14, "work/c…/deputy"},
		{"short", 19, "short"},
		{"星座名前です/notes.md", 12, "星座…tes.md"},
	} {
		var b strings.Builder
		writeCell(&b, c.text, c.w, Column{Middle: true}, true)
		got := strings.TrimRight(b.String(), " ")
		if got != c.want || ansi.StringWidth(b.String()) != c.w {
			t.Errorf("%q in %d cells: %q (%d cells), want %q", c.text, c.w, b.String(), ansi.StringWidth(b.String()), c.want)
		}
	}
}
