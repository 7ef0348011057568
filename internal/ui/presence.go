package ui

import (
	"cmp"
	"strconv"
	"strings"
	"time"
)

// The presence table's columns, in order.
const (
	pcAddress = iota
	pcName
	pcClass
	pcGen
	pcState
	pcActivity
	pcSummary
	pcSeen
	pcWaiting
)

// presenceColumns fit 80 columns whole; below that the summary, the
// activity and the class are hidden in that order (the detail pane shows
// them), so down to the smallest usable width (minWidth) a row keeps its
// address, name, generation, state, last seen and waiting count.
var presenceColumns = []Column{
	pcAddress:  {Title: "ADDRESS", Min: 16, Max: 24, Middle: true},
	pcName:     {Title: "NAME", Min: 9, Max: 14},
	pcClass:    {Title: "CLASS", Min: 11, Max: 16, Drop: 1},
	pcGen:      {Title: "GEN", Min: 3, Max: 3, Right: true},
	pcState:    {Title: "STATE", Min: 10, Max: 10},
	pcActivity: {Title: "ACTIVITY", Min: 8, Max: 16, Drop: 2},
	pcSummary:  {Title: "SUMMARY", Min: 5, Drop: 3},
	pcSeen:     {Title: "SEEN", Min: 4, Max: 5, Right: true},
	pcWaiting:  {Title: "WAIT", Min: 4, Max: 4, Right: true},
}

// presenceView is the home view: a live table of personas.
type presenceView struct {
	styles *Styles
	table  *Table[Persona]
	pane   detailPane
	width  int
	height int
}

func newPresenceView(st *Styles) *presenceView {
	v := &presenceView{styles: st}
	v.table = NewTable(TableSpec[Persona]{
		Columns:  presenceColumns,
		Key:      personaKey,
		Cell:     personaCell,
		Paint:    func(p *Persona, col int) paint { return personaPaint(st, p, col) },
		Haystack: personaHaystack,
		Tie:      personaTie,
	}, st)
	return v
}

func personaKey(p *Persona, col int) SortKey {
	switch col {
	case pcAddress:
		return SortKey{S: p.Address}
	case pcName:
		return SortKey{S: strings.ToLower(p.Name)}
	case pcClass:
		return SortKey{S: p.Class}
	case pcGen:
		return SortKey{N: int64(p.Generation)}
	case pcState:
		return SortKey{N: stateRank(p.State), S: string(p.State)}
	case pcActivity:
		return SortKey{S: p.Activity}
	case pcSummary:
		return SortKey{S: p.Summary}
	case pcSeen: // most recently seen first when ascending
		return SortKey{N: -p.LastSeen.UnixNano()}
	case pcWaiting:
		return SortKey{N: int64(p.Waiting)}
	}
	return SortKey{}
}

// personaTie orders personas with equal sort keys by address, then
// generation, so a column of equal values lists seats in one stable order.
func personaTie(a, b *Persona) int {
	return cmp.Or(strings.Compare(a.Address, b.Address), cmp.Compare(a.Generation, b.Generation))
}

// stateRank sorts the liveliest personas first.
func stateRank(s PresenceState) int64 {
	switch s {
	case PresenceActive:
		return 0
	case PresenceIdle:
		return 1
	case PresenceStale:
		return 2
	case PresenceStanding:
		return 3
	case PresenceOffline:
		return 4
	case PresenceRetired:
		return 5
	}
	return 6
}

func personaCell(p *Persona, col int, now time.Time) string {
	switch col {
	case pcAddress:
		return p.Address
	case pcName:
		return p.Name
	case pcClass:
		return p.Class
	case pcGen:
		return strconv.Itoa(p.Generation)
	case pcState:
		return sessionCell(p)
	case pcActivity:
		return p.Activity
	case pcSummary:
		return p.Summary
	case pcSeen:
		return since(now, p.LastSeen)
	case pcWaiting:
		if p.Waiting == 0 {
			return "·"
		}
		return strconv.Itoa(p.Waiting)
	}
	return ""
}

func personaPaint(st *Styles, p *Persona, col int) paint {
	if p.State == PresenceRetired {
		return st.dim
	}
	if col == pcState {
		return st.presence[p.State]
	}
	return st.plain
}

func personaHaystack(p *Persona, dst []byte) []byte {
	return appendLower(dst, p.Address, p.Name, p.Class, string(p.State), p.Session, p.Activity, p.Summary)
}

// sessionCell is the state column: a live runtime's resident session says
// what its turn is (working, waiting for a human, idle), as its hooks
// report it; anything else, the presence state.
func sessionCell(p *Persona) string {
	if p.Session != "" && p.Session != "ended" && (p.State == PresenceActive || p.State == PresenceIdle) {
		return stateGlyph[p.State] + " " + p.Session
	}
	return stateCell(p.State)
}

// sessionDetail is the detail pane's line of the resident session.
func sessionDetail(s string) string {
	switch s {
	case "waiting":
		return "waiting for a human (see activity)"
	}
	return s
}

// changedColumns marks the cells that differ between two versions of a
// persona, for the brief highlight.
func changedColumns(a, b *Persona) uint64 {
	var m uint64
	mark := func(col int, differ bool) {
		if differ {
			m |= 1 << col
		}
	}
	mark(pcAddress, a.Address != b.Address)
	mark(pcName, a.Name != b.Name)
	mark(pcClass, a.Class != b.Class)
	mark(pcGen, a.Generation != b.Generation)
	mark(pcState, a.State != b.State || a.Session != b.Session)
	mark(pcActivity, a.Activity != b.Activity)
	mark(pcSummary, a.Summary != b.Summary)
	mark(pcWaiting, a.Waiting != b.Waiting)
	return m
}

// load replaces every row with the snapshot's personas; the table keeps
// pointers into ps, which the console owns from then on.
func (v *presenceView) load(ps []Persona, now time.Time) {
	fresh := v.table.Total() == 0
	v.table.Begin(len(ps) + v.table.Total())
	for i := range ps {
		v.table.Upsert(ps[i].ID, &ps[i], 0, now)
	}
	if !fresh {
		dropMissing(v.table, len(ps), func(i int) string { return ps[i].ID })
	}
	v.table.End()
}

// upsert applies one changed persona, highlighting what changed.
func (v *presenceView) upsert(p Persona, now time.Time) {
	var changed uint64
	if old, ok := v.table.Get(p.ID); ok {
		changed = changedColumns(old, &p)
	}
	v.table.Upsert(p.ID, &p, changed, now)
}

// jump selects the persona at an address or with a name (exact first, then
// by prefix), clearing a filter that hides it.
func (v *presenceView) jump(q string) bool {
	return v.table.Jump(q, func(p *Persona) (string, string) { return p.Address, p.Name })
}

// setSize lays the view out in width×height cells.
func (v *presenceView) setSize(width, height int) {
	v.width, v.height = width, height
	v.table.SetSize(width, height-v.paneHeight())
}

// paneHeight is the height of the detail pane under the table: half the
// body.
func (v *presenceView) paneHeight() int { return v.pane.under(v.height, 1, 2) }

// paneLines is the selected persona's detail, wrapped to the width.
func (v *presenceView) paneLines(now time.Time) (title string, lines []string) {
	p, ok := v.table.Get(v.table.Selected())
	if !ok {
		v.pane.show("")
		return "detail", []string{"no persona selected"}
	}
	v.pane.show(p.ID)
	return p.Address, wrapFields(v.styles, personaDetail(p, now), v.width)
}

// view renders the table and, when open, the detail pane below it, or the
// pane alone when zoomed.
func (v *presenceView) view(now time.Time) string {
	if v.pane.zoomed {
		title, lines := v.paneLines(now)
		return v.pane.view(v.styles, title, lines, v.width, v.height)
	}
	out := v.table.View(now)
	if !v.pane.open {
		return out
	}
	title, lines := v.paneLines(now)
	return out + "\n" + v.pane.view(v.styles, title, lines, v.width, v.paneHeight())
}

// personaDetail is what docs/console.md promises of a persona: its stamp (hash
// and summary), bindings, the seat's history over every generation with
// the snapshot kept of each, and its whole activity and summary.
func personaDetail(p *Persona, now time.Time) []field {
	fs := []field{
		{"name         ", p.Name + " (generation " + strconv.Itoa(p.Generation) + ")"},
		{"class        ", p.Class},
		{"state        ", stateCell(p.State) + ", seen " + since(now, p.LastSeen) + " ago"},
		{"waiting on   ", strconv.Itoa(p.Waiting) + " confirmation(s)"},
		{"stamp        ", p.StampSummary},
		{"stamp hash   ", p.StampHash},
		{"activity     ", p.Activity},
		{"summary      ", p.Summary},
	}
	if p.Session != "" {
		fs = append(fs, field{"session      ", sessionDetail(p.Session)})
	}
	for _, b := range p.Bindings {
		fs = append(fs, field{"binding      ", b.Kind + " " + b.Target})
	}
	if len(p.Seats) > 0 {
		fs = append(fs, field{"seat history", ""})
	}
	for _, s := range p.Seats {
		span := "from " + day(s.From) + ", holds the seat"
		if !s.Until.IsZero() {
			span = day(s.From) + " – " + day(s.Until)
		}
		if s.Snapshot != "" {
			span += ", snapshot " + s.Snapshot
		}
		fs = append(fs, field{"  gen " + strconv.Itoa(s.Generation) + "  ", s.Name + ", " + s.State + ", " + span})
	}
	return fs
}

// day is a date as the detail pane shows it; "—" when unknown.
func day(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02")
}
