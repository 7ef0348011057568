package ui

import (
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Column describes one table column. Widths follow the terminal width and,
// in a table that fits its page (TableSpec.FitPage), the rows on screen —
// never the whole list, so a frame never scans every row to lay out.
type Column struct {
	Title string
	// Min and Max bound the column's width in cells; Max 0 means it takes
	// whatever width is left.
	Min, Max int
	// Right aligns numbers.
	Right bool
	// Middle cuts a text too long for the column in its middle, keeping
	// both ends: the end of a target or an address (the file, the role) is
	// what an operator must see before deciding.
	Middle bool
	// Cut, when set, shortens a text of tw cells too long for the column to
	// at most w cells instead of Middle or the end cut: the queue's target
	// keeps a URL's host and a path's file whole.
	Cut func(text string, tw, w int) string
	// Drop ranks a column the terminal may be too narrow for: when the
	// minimums do not fit, the highest rank is hidden first (its value
	// stays in the detail pane). 0 is never hidden.
	Drop int
}

// SortKey orders rows by one column: N first, then S.
type SortKey struct {
	N int64
	S string
}

func (a SortKey) compare(b SortKey) int {
	switch {
	case a.N < b.N:
		return -1
	case a.N > b.N:
		return 1
	}
	return strings.Compare(a.S, b.S)
}

// TableSpec tells a Table how to read its records.
type TableSpec[T any] struct {
	Columns []Column
	// Key returns a record's sort key for column col.
	Key func(v *T, col int) SortKey
	// Group orders rows before the column key (the queue puts the
	// operator's own confirmations first); nil means one group.
	Group func(v *T) int
	// Cell renders a record's cell; now lets ages be computed per frame.
	Cell func(v *T, col int, now time.Time) string
	// Paint styles a cell (presence state colours, dimmed rows).
	Paint func(v *T, col int) paint
	// Haystack appends the lowercase text a filter matches against to dst
	// (see appendLower); appending lets a bulk load share one buffer.
	Haystack func(v *T, dst []byte) []byte
	// Tie orders rows whose sort keys are equal, the same way whichever
	// the sort direction (the presence view: address, then generation);
	// rows it cannot tell apart fall back to their ids.
	Tie func(a, b *T) int
	// FitPage sizes the bounded columns to the widest cell on the page
	// shown (up to their Max), so an unbounded column gets every cell the
	// others do not need: the queue's target, not the tool, grows first.
	FitPage bool
	// Marked says whether a row is marked (the queue's approve several):
	// a ✓ beside the selection marker. nil marks nothing.
	Marked func(v *T) bool
	// Cut, when set, picks the cut of one row's cell in place of its
	// column's (Column.Cut): the inbox's TEXT column holds a message's
	// text, cut at its end, and a confirmation's operation, cut so that
	// its target keeps its host. A nil answer keeps the column's.
	Cut func(v *T, col int) func(text string, tw, w int) string
}

// tableRow is one record with what the table caches about it.
type tableRow[T any] struct {
	id     string
	val    *T
	group  int
	key    SortKey // the sort column's key
	hay    string
	hasHay bool
	match  bool
	gone   bool // deleted while the order was stale
	// changed and changedCols drive the brief highlight of changed cells.
	changed     time.Time
	changedCols uint64
}

// Table is a virtualized, sorted, filtered table that selects by stable id.
// Sorting and filtering are maintained incrementally when records change, so
// a frame renders only the visible rows whatever the total.
type Table[T any] struct {
	spec   TableSpec[T]
	styles *Styles
	rows   map[string]*tableRow[T]
	sorted []*tableRow[T] // every row, in sort order
	// filtered holds the matching rows in sort order while a filter is set.
	filtered []*tableRow[T]
	filter   string
	// recent holds the matches of the last filters shown before this one
	// (the shorter forms a backspace returns to, the longer one it left),
	// so that editing the filter back and forth rescans no row. Held only
	// while no row changes and the order stands; see forget.
	recent []filterMatch[T]

	sortCol int
	desc    bool

	selID  string
	selPos int // last known index of the selection, for when it vanishes
	selOff int // screen line of the selection within the viewport

	width, height int
	widths        []int

	// Highlight is how long changed cells stay highlighted.
	Highlight time.Duration
	// stale is true when sorted holds the rows in no order (after a bulk
	// update); filtered and the selection's position are then stale too.
	stale bool
	// slab holds the rows a bulk update adds, allocated together.
	slab []tableRow[T]
}

// filterMatch is the rows, in sort order, that one filter matched. Its
// slice may be shared with other entries and with Table.filtered: it is
// never written in place while held in Table.recent.
type filterMatch[T any] struct {
	q    string
	rows []*tableRow[T]
}

// recentFilters bounds Table.recent. Each entry holds at most one pointer
// a row, so the memory is at most recentFilters × 8 bytes a row (6.4 MB
// at 100,000 rows), and much less as a filter lengthens: the rows of a
// longer filter are a subset of a shorter one's, and a filter that drops
// no row shares its shorter form's slice. Eight covers backspacing
// through a word and retyping it.
const recentFilters = 8

// NewTable returns an empty table.
func NewTable[T any](spec TableSpec[T], styles *Styles) *Table[T] {
	return &Table[T]{spec: spec, styles: styles, rows: map[string]*tableRow[T]{}, Highlight: 1500 * time.Millisecond}
}

// Len is the number of rows the current filter shows.
func (t *Table[T]) Len() int { return len(t.visible()) }

// Total is the number of rows held.
func (t *Table[T]) Total() int { return len(t.rows) }

// visible is the shown rows in order; reading it settles a stale order.
func (t *Table[T]) visible() []*tableRow[T] {
	t.ensure()
	if t.filter == "" {
		return t.sorted
	}
	return t.filtered
}

func (t *Table[T]) less(a, b *tableRow[T]) int {
	if a.group != b.group {
		return a.group - b.group
	}
	c := a.key.compare(b.key)
	if t.desc {
		c = -c
	}
	if c != 0 {
		return c
	}
	if t.spec.Tie != nil {
		if c := t.spec.Tie(a.val, b.val); c != 0 {
			return c
		}
	}
	return strings.Compare(a.id, b.id)
}

// find returns the index of r in s (sorted with r's current cached keys).
func (t *Table[T]) find(s []*tableRow[T], r *tableRow[T]) (int, bool) {
	i, ok := slices.BinarySearchFunc(s, r, t.less)
	return i, ok && s[i] == r
}

func (t *Table[T]) insert(s []*tableRow[T], r *tableRow[T]) []*tableRow[T] {
	i, _ := slices.BinarySearchFunc(s, r, t.less)
	return slices.Insert(s, i, r)
}

func (t *Table[T]) remove(s []*tableRow[T], r *tableRow[T]) []*tableRow[T] {
	if i, ok := t.find(s, r); ok {
		return slices.Delete(s, i, i+1)
	}
	return s
}

func (t *Table[T]) matches(r *tableRow[T]) bool {
	return t.filter == "" || strings.Contains(r.hay, t.filter)
}

// refresh recomputes a row's cached keys from its record. The haystack is
// dropped and rebuilt only when a filter needs it (see haystacks): the first
// frame of a large installation never pays for filtering it has not asked for.
func (t *Table[T]) refresh(r *tableRow[T]) {
	if t.spec.Group != nil {
		r.group = t.spec.Group(r.val)
	}
	r.key = t.spec.Key(r.val, t.sortCol)
	r.hay, r.hasHay = "", false
	if t.filter != "" && !t.stale {
		r.hay, r.hasHay = string(t.spec.Haystack(r.val, nil)), true
	}
	r.match = t.stale || t.matches(r)
}

// Begin starts a bulk update of about n records. When n is a large share
// of the table (or the table is empty) the order goes stale: records are
// taken in O(1) each and the order is rebuilt once, the next time it is
// read (see ensure), so a table nobody looks at never sorts. Rows added
// until End are allocated together.
func (t *Table[T]) Begin(n int) {
	if !(len(t.rows) == 0 || n > 64 && n > len(t.rows)/8) {
		return
	}
	t.stale = true
	t.slab = make([]tableRow[T], 0, n)
	if len(t.rows) == 0 {
		t.rows = make(map[string]*tableRow[T], n)
		t.sorted = make([]*tableRow[T], 0, n)
	}
}

// End ends a bulk update.
func (t *Table[T]) End() { t.slab = nil }

// ensure rebuilds a stale order: sort, filter, and find the selection.
func (t *Table[T]) ensure() {
	if !t.stale {
		return
	}
	t.stale = false
	t.sorted = slices.DeleteFunc(t.sorted, func(r *tableRow[T]) bool { return r.gone })
	slices.SortFunc(t.sorted, t.less)
	t.refilter()
	t.settle()
}

// haystacks builds, on the UI thread, the haystacks rows still lack (a
// filter typed before the background index finished).
func (t *Table[T]) haystacks() {
	rows, vals := t.unindexed()
	all, ends := buildHaystacks(t.spec.Haystack, vals)
	installHaystacks(rows, vals, all, ends)
}

// indexCmd builds the haystacks rows lack off the UI thread; the result
// installs them in Update, skipping rows whose record changed meanwhile
// (records are never mutated: an update replaces the pointer).
func (t *Table[T]) indexCmd() tea.Cmd {
	rows, vals := t.unindexed()
	if len(rows) == 0 {
		return nil
	}
	fn := t.spec.Haystack
	return func() tea.Msg {
		all, ends := buildHaystacks(fn, vals)
		return indexedMsg{install: func() { installHaystacks(rows, vals, all, ends) }}
	}
}

// indexedMsg carries haystacks built off the UI thread.
type indexedMsg struct{ install func() }

func (t *Table[T]) unindexed() ([]*tableRow[T], []*T) {
	var rows []*tableRow[T]
	var vals []*T
	for _, r := range t.sorted {
		if !r.hasHay && !r.gone {
			rows = append(rows, r)
			vals = append(vals, r.val)
		}
	}
	return rows, vals
}

// buildHaystacks writes every haystack into one buffer: one allocation
// instead of one per row.
func buildHaystacks[T any](fn func(*T, []byte) []byte, vals []*T) (string, []int) {
	if len(vals) == 0 {
		return "", nil
	}
	buf := make([]byte, 0, len(vals)*len(fn(vals[0], nil))*5/4)
	ends := make([]int, len(vals))
	for i, v := range vals {
		buf = fn(v, buf)
		ends[i] = len(buf)
	}
	return string(buf), ends
}

func installHaystacks[T any](rows []*tableRow[T], vals []*T, all string, ends []int) {
	start := 0
	for i, r := range rows {
		if r.val == vals[i] && !r.hasHay {
			r.hay, r.hasHay = all[start:ends[i]], true
		}
		start = ends[i]
	}
}

// Upsert adds or replaces the record with this id. changedCols marks the
// cells to highlight (bit c for column c); 0 highlights nothing.
func (t *Table[T]) Upsert(id string, v *T, changedCols uint64, now time.Time) {
	t.forget()
	r, ok := t.rows[id]
	switch {
	case !ok && t.slab != nil:
		t.slab = append(t.slab, tableRow[T]{id: id})
		r = &t.slab[len(t.slab)-1]
		t.rows[id] = r
	case !ok:
		r = &tableRow[T]{id: id}
		t.rows[id] = r
	case !t.stale:
		t.sorted = t.remove(t.sorted, r)
		if t.filter != "" && r.match {
			t.filtered = t.remove(t.filtered, r)
		}
	}
	r.val = v
	if changedCols != 0 {
		r.changed, r.changedCols = now, changedCols
	}
	t.refresh(r)
	if t.stale {
		if !ok {
			t.sorted = append(t.sorted, r)
		}
		return
	}
	t.sorted = t.insert(t.sorted, r)
	if t.filter != "" && r.match {
		t.filtered = t.insert(t.filtered, r)
	}
	t.settle()
}

// Delete removes the record with this id, if held.
func (t *Table[T]) Delete(id string) {
	r, ok := t.rows[id]
	if !ok {
		return
	}
	delete(t.rows, id)
	t.forget()
	if t.stale { // ensure drops it with every other gone row in one pass
		r.gone = true
		return
	}
	t.sorted = t.remove(t.sorted, r)
	if t.filter != "" && r.match {
		t.filtered = t.remove(t.filtered, r)
	}
	t.settle()
}

// Get returns the record with this id; the table owns it, callers only read.
func (t *Table[T]) Get(id string) (*T, bool) {
	r, ok := t.rows[id]
	if !ok {
		return nil, false
	}
	return r.val, true
}

// SetFilter keeps only rows whose haystack contains q (case-insensitive).
// A filter shown recently is restored without a scan; any other narrows
// the fewest rows of a filter it contains (the current one when a letter
// is typed), and only a filter that contains none of them scans every row.
func (t *Table[T]) SetFilter(q string) {
	q = strings.ToLower(q)
	if q == t.filter {
		return
	}
	t.ensure()
	if t.filter != "" {
		t.recent = append(t.recent, filterMatch[T]{t.filter, t.filtered})
	}
	rows := t.match(q)
	if n := len(t.recent) - recentFilters; n > 0 {
		t.recent = slices.Delete(t.recent, 0, n)
	}
	t.show(q, rows)
	t.settle()
}

// Filter returns the current filter text.
func (t *Table[T]) Filter() string { return t.filter }

// match returns the rows q matches, in sort order: a recent filter's own
// rows (taken out of t.recent: they become the current ones), else those
// of the smallest recent match q narrows, else those of every row.
func (t *Table[T]) match(q string) []*tableRow[T] {
	if q == "" {
		return nil
	}
	best := -1
	for i, m := range t.recent {
		if m.q == q {
			t.recent = slices.Delete(t.recent, i, i+1)
			return m.rows
		}
		if strings.Contains(q, m.q) && (best < 0 || len(m.rows) < len(t.recent[best].rows)) {
			best = i
		}
	}
	if best >= 0 {
		return narrow(t.recent[best].rows, q)
	}
	t.haystacks()
	rows := narrow(t.sorted, q)
	if len(rows) == len(t.sorted) {
		rows = slices.Clone(rows) // t.sorted changes in place: never share it
	}
	return rows
}

// narrow returns the rows of src whose haystack contains q. When every
// row matches it returns src itself: a filter that drops nothing (typing
// through a prefix every address shares) costs no copy.
func narrow[T any](src []*tableRow[T], q string) []*tableRow[T] {
	for i, r := range src {
		if strings.Contains(r.hay, q) {
			continue
		}
		out := make([]*tableRow[T], i, i+(len(src)-i)/4)
		copy(out, src[:i])
		for _, r := range src[i+1:] {
			if strings.Contains(r.hay, q) {
				out = append(out, r)
			}
		}
		return out
	}
	return src
}

// show makes rows, q's matches, the visible rows.
func (t *Table[T]) show(q string, rows []*tableRow[T]) {
	for _, r := range t.visible() {
		r.match = false
	}
	t.filter, t.filtered = q, rows
	for _, r := range t.visible() {
		r.match = true
	}
}

// refilter matches the filter against every row afresh, after a bulk
// update (whose rows have dropped the recent filters already).
func (t *Table[T]) refilter() {
	t.filtered = t.match(t.filter)
	for _, r := range t.sorted {
		r.match = t.filter == ""
	}
	for _, r := range t.filtered {
		r.match = true
	}
}

// forget drops the recent filters' matches: a row added, changed or
// removed, or a new order, makes them wrong.
func (t *Table[T]) forget() {
	clear(t.recent)
	t.recent = t.recent[:0]
}

// SortBy sorts by column col, descending if desc.
func (t *Table[T]) SortBy(col int, desc bool) {
	if col < 0 || col >= len(t.spec.Columns) || (col == t.sortCol && desc == t.desc) {
		return
	}
	t.ensure()
	if col != t.sortCol {
		for _, r := range t.sorted {
			r.key = t.spec.Key(r.val, col)
		}
	}
	t.sortCol, t.desc = col, desc
	t.forget()
	slices.SortFunc(t.sorted, t.less)
	if t.filter != "" {
		slices.SortFunc(t.filtered, t.less)
	}
	t.settle()
}

// Sort returns the sort column and direction.
func (t *Table[T]) Sort() (col int, desc bool) { return t.sortCol, t.desc }

// Selected returns the selected record's id, "" when the table is empty.
func (t *Table[T]) Selected() string { return t.selID }

// Select selects the record with this id if it is visible.
func (t *Table[T]) Select(id string) bool {
	r, ok := t.rows[id]
	if !ok || !r.match {
		return false
	}
	t.selID = id
	t.settle()
	return true
}

// SelectFirst selects the first visible row, in display order, for which
// pred holds (the jump prompt).
func (t *Table[T]) SelectFirst(pred func(v *T) bool) bool {
	for _, r := range t.visible() {
		if pred(r.val) {
			t.selID = r.id
			t.settle()
			return true
		}
	}
	return false
}

// Jump selects the first row whose address or name is q (names compared
// without case), else the first whose address or name starts with it,
// clearing a filter that hides every match. label gives a row's address and
// name.
func (t *Table[T]) Jump(q string, label func(v *T) (address, name string)) bool {
	q = strings.ToLower(strings.TrimSpace(q))
	if q == "" {
		return false
	}
	exact := func(v *T) bool { a, n := label(v); return a == q || strings.ToLower(n) == q }
	prefix := func(v *T) bool {
		a, n := label(v)
		return strings.HasPrefix(a, q) || strings.HasPrefix(strings.ToLower(n), q)
	}
	if t.SelectFirst(exact) || t.SelectFirst(prefix) {
		return true
	}
	if t.Filter() == "" {
		return false
	}
	t.SetFilter("")
	return t.SelectFirst(exact) || t.SelectFirst(prefix)
}

// Move moves the selection by delta rows.
func (t *Table[T]) Move(delta int) {
	vis := t.visible()
	if len(vis) == 0 {
		return
	}
	pos := max(0, min(len(vis)-1, t.selPos+delta))
	t.selOff += pos - t.selPos
	t.selID = vis[pos].id
	t.settle()
}

// First moves the selection to the first row.
func (t *Table[T]) First() { t.Move(-t.Len()) }

// Last moves the selection to the last row.
func (t *Table[T]) Last() { t.Move(t.Len()) }

// PageSize is the number of rows one screen shows.
func (t *Table[T]) PageSize() int { return max(1, t.height-1) }

// settle finds the selection's position after a change and keeps it on the
// same screen line, so rows moving under live updates do not move the
// operator's selection.
func (t *Table[T]) settle() {
	vis := t.visible()
	if len(vis) == 0 {
		// Nothing on screen, nothing selected: a key must never act on a
		// row the filter hides.
		t.selID, t.selPos, t.selOff = "", 0, 0
		return
	}
	pos := -1
	if r, ok := t.rows[t.selID]; ok && r.match {
		if i, found := t.find(vis, r); found {
			pos = i
		}
	}
	if pos < 0 { // the selection left: take the row now at its place
		pos = min(t.selPos, len(vis)-1)
		t.selID = vis[pos].id
	}
	t.selPos = pos
	page := t.PageSize()
	top := pos - max(0, min(t.selOff, page-1))
	top = max(0, min(top, len(vis)-page))
	t.selOff = pos - top
}

// SetSize sets the table's size in cells (the header takes one line) and
// lays the columns out.
func (t *Table[T]) SetSize(width, height int) {
	t.width, t.height = width, max(2, height)
	t.widths = layoutColumns(t.spec.Columns, width-2, nil) // 2: selection marker
	t.settle()
}

// layoutColumns gives every column its minimum, then shares what is left
// one cell at a time among the columns below their maximum, and gives the
// rest to the unbounded ones. fits, when given, lowers each bounded
// column's maximum to what its cells need (never below its minimum). When
// the minimums do not fit, the columns with a Drop rank are hidden (width
// 0), highest rank first, until they do; what still does not fit shrinks
// from the right.
func layoutColumns(cols []Column, width int, fits []int) []int {
	w := make([]int, len(cols))
	shown := make([]bool, len(cols))
	need := -1 // one space between shown columns
	for i, c := range cols {
		shown[i] = true
		need += c.Min + 1
	}
	for need > width {
		drop := -1
		for i, c := range cols {
			if shown[i] && c.Drop > 0 && (drop < 0 || c.Drop > cols[drop].Drop) {
				drop = i
			}
		}
		if drop < 0 {
			break
		}
		shown[drop] = false
		need -= cols[drop].Min + 1
	}
	left := width - need
	for i, c := range cols {
		if shown[i] {
			w[i] = c.Min
		}
	}
	for grew := true; grew && left > 0; {
		grew = false
		for i, c := range cols {
			top := c.Max
			if fits != nil && c.Max > 0 {
				top = min(c.Max, max(c.Min, fits[i]))
			}
			if left > 0 && shown[i] && c.Max > 0 && w[i] < top {
				w[i]++
				left--
				grew = true
			}
		}
	}
	for i, c := range cols {
		if left > 0 && shown[i] && c.Max == 0 {
			w[i] += left
			left = 0
		}
	}
	for i := len(w) - 1; i > 0 && left < 0; i-- {
		cut := min(max(0, w[i]-1), -left)
		w[i] -= cut
		left += cut
	}
	return w
}

// View renders the header and the visible rows, exactly height lines of
// at most width cells.
func (t *Table[T]) View(now time.Time) string {
	var b strings.Builder
	vis := t.visible()
	page := t.PageSize()
	top := t.selPos - t.selOff
	if t.spec.FitPage {
		t.widths = layoutColumns(t.spec.Columns, t.width-2, t.pageNeed(vis[max(0, min(top, len(vis))):min(len(vis), max(0, top+page))], now))
	}
	b.Grow((page + 1) * (t.width + 32))
	st := t.styles
	b.WriteString(st.header.pre)
	b.WriteString("  ")
	sep := false
	for c, col := range t.spec.Columns {
		if t.widths[c] == 0 {
			continue // hidden on a narrow terminal
		}
		if sep {
			b.WriteByte(' ')
		}
		sep = true
		title := col.Title
		if c == t.sortCol {
			if t.desc {
				title += "↓"
			} else {
				title += "↑"
			}
		}
		writeCell(&b, title, t.widths[c], col, false)
	}
	b.WriteString(st.header.post)
	for i := 0; i < page; i++ {
		b.WriteByte('\n')
		n := top + i
		if n < 0 || n >= len(vis) {
			continue
		}
		t.writeRow(&b, vis[n], n == t.selPos, now)
	}
	return b.String()
}

func (t *Table[T]) writeRow(b *strings.Builder, r *tableRow[T], selected bool, now time.Time) {
	st := t.styles
	hot := r.changedCols != 0 && now.Sub(r.changed) < t.Highlight
	mark := " "
	if t.spec.Marked != nil && t.spec.Marked(r.val) {
		mark = "✓"
	}
	if selected {
		b.WriteString(st.selected.pre)
		b.WriteString("▸" + mark)
	} else {
		b.WriteString(" " + mark)
	}
	sep := false
	for c, col := range t.spec.Columns {
		if t.widths[c] == 0 {
			continue
		}
		if sep {
			b.WriteByte(' ')
		}
		sep = true
		text := t.spec.Cell(r.val, c, now)
		if t.spec.Cut != nil {
			if cut := t.spec.Cut(r.val, c); cut != nil {
				col.Cut = cut
			}
		}
		if selected {
			writeCell(b, text, t.widths[c], col, true)
			continue
		}
		p := t.spec.Paint(r.val, c)
		if hot && r.changedCols&(1<<c) != 0 {
			p = st.changed
		}
		b.WriteString(p.pre)
		writeCell(b, text, t.widths[c], col, true)
		b.WriteString(p.post)
	}
	if selected {
		b.WriteString(st.selected.post)
	}
}

// pageNeed is the width each column's cells need on the rows shown, the
// title (with its sort arrow) included.
func (t *Table[T]) pageNeed(rows []*tableRow[T], now time.Time) []int {
	need := make([]int, len(t.spec.Columns))
	for c, col := range t.spec.Columns {
		need[c] = ansi.StringWidth(col.Title)
		if c == t.sortCol {
			need[c]++
		}
		for _, r := range rows {
			need[c] = max(need[c], textWidth(t.spec.Cell(r.val, c, now)))
		}
	}
	return need
}

// writeCell writes text truncated with an ellipsis (by the column's Cut,
// in its middle, or at its end) and padded to w cells; a title (cell
// false) is only ever cut at its end.
func writeCell(b *strings.Builder, text string, w int, col Column, cell bool) {
	if w <= 0 {
		return
	}
	right, middle := col.Right, cell && col.Middle
	tw := textWidth(text)
	if tw > w && cell && col.Cut != nil {
		text = col.Cut(text, tw, w)
		tw = ansi.StringWidth(text)
	}
	if tw > w && middle && tw == len(text) && w >= 3 && !right {
		// ASCII cut in the middle: written in place, no allocation (the
		// queue cuts a target and a requester on most rows of a frame).
		head := (w - 1) / 2
		b.WriteString(text[:head])
		b.WriteString("…")
		b.WriteString(text[len(text)-(w-1-head):])
		return
	}
	if tw > w {
		if middle {
			text = truncateMiddle(text, tw, w)
		} else {
			text = ansi.Truncate(text, w, "…")
		}
		tw = ansi.StringWidth(text)
	}
	pad := w - tw
	if right {
		b.WriteString(spaces(pad))
		b.WriteString(text)
		return
	}
	b.WriteString(text)
	b.WriteString(spaces(pad))
}

// truncateMiddle cuts text of tw cells to at most w cells by replacing its
// middle with an ellipsis. The tail keeps the larger half: it names the
// file or the role.
func truncateMiddle(text string, tw, w int) string {
	if w < 3 {
		return ansi.Truncate(text, w, "…")
	}
	head := (w - 1) / 2
	tail := w - 1 - head
	return ansi.Truncate(text, head, "") + "…" + ansi.TruncateLeft(text, tw-tail, "")
}

// textWidth is the cell width of plain text, fast for ASCII.
func textWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 || s[i] < 0x20 {
			return ansi.StringWidth(s)
		}
	}
	return len(s)
}

const blank = "                                                                                                                                "

func spaces(n int) string {
	if n <= len(blank) {
		return blank[:max(0, n)]
	}
	return strings.Repeat(" ", n)
}

// dropMissing deletes the rows whose ids are not among the n ids given,
// after a fresh snapshot replaced the records.
func dropMissing[T any](t *Table[T], n int, id func(int) string) {
	keep := make(map[string]bool, n)
	for i := range n {
		keep[id(i)] = true
	}
	for rid := range t.rows {
		if !keep[rid] {
			t.Delete(rid)
		}
	}
}
