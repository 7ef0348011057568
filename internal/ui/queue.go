package ui

import (
	"cmp"
	"strings"
	"time"
)

// The queue table's columns, in order: who asks, what (tool, target,
// shape), who decides, and the clock. The boundary and the handler action
// are in the detail pane; the shape already says which boundary is crossed.
const (
	qcRequester = iota
	qcTool
	qcTarget
	qcShape
	qcRouted
	qcAge
	qcLeft
)

// queueColumns fit 80 columns with the target at 19 cells and give every
// cell beyond the others' maximum to the target. Requester and target are
// cut in the middle, so their ends (the role, the file) stay visible.
// Below 80 columns the age, the tool, then the shape are hidden (the
// detail pane shows them), so down to the smallest usable width (minWidth)
// a row keeps who asks, the target, who decides and the time left.
var queueColumns = []Column{
	qcRequester: {Title: "REQUESTER", Min: 14, Max: 22, Middle: true},
	qcTool:      {Title: "TOOL", Min: 12, Max: 22, Drop: 2},
	qcTarget:    {Title: "TARGET", Min: 19, Middle: true},
	qcShape:     {Title: "SHAPE", Min: 11, Max: 17, Drop: 1},
	qcRouted:    {Title: "ROUTED", Min: 7, Max: 14},
	qcAge:       {Title: "AGE", Min: 4, Max: 5, Right: true, Drop: 3},
	qcLeft:      {Title: "LEFT", Min: 5, Max: 6, Right: true},
}

// Routing groups of a confirmation: the operator's own first.
const (
	routedToOperator = iota
	routedToOther
	unroutable
)

// queueView is the approval queue.
type queueView struct {
	styles   *Styles
	table    *Table[Confirmation]
	operator string
	pane     detailPane
	width    int
	height   int
	// mine counts pending confirmations routed to the operator.
	mine int
}

func newQueueView(st *Styles) *queueView {
	v := &queueView{styles: st}
	v.table = NewTable(TableSpec[Confirmation]{
		Columns:  queueColumns,
		Key:      confirmationKey,
		Group:    v.group,
		Cell:     v.cell,
		Paint:    v.paint,
		Haystack: confirmationHaystack,
		Tie:      confirmationTie,
	}, st)
	v.table.SortBy(qcAge, true) // oldest first
	return v
}

func (v *queueView) group(c *Confirmation) int {
	switch {
	case c.Authority == "":
		return unroutable
	case c.Authority == v.operator:
		return routedToOperator
	}
	return routedToOther
}

// actionable says whether the operator may decide c here.
func (v *queueView) actionable(c *Confirmation) bool { return v.group(c) == routedToOperator }

func confirmationKey(c *Confirmation, col int) SortKey {
	switch col {
	case qcRequester:
		return SortKey{S: c.Requester}
	case qcTool:
		return SortKey{S: c.Tool}
	case qcTarget:
		return SortKey{S: c.Target}
	case qcShape:
		return SortKey{S: c.Shape}
	case qcRouted:
		return SortKey{S: c.Authority}
	case qcAge: // ascending: youngest first
		return SortKey{N: -c.Created.UnixNano()}
	case qcLeft:
		return SortKey{N: c.Expires.UnixNano()}
	}
	return SortKey{}
}

// confirmationTie orders confirmations with equal sort keys by the
// requester's address, then the requesting generation's age (oldest
// first), so equal values keep one stable order.
func confirmationTie(a, b *Confirmation) int {
	return cmp.Or(strings.Compare(a.Requester, b.Requester), a.Created.Compare(b.Created))
}

func (v *queueView) cell(c *Confirmation, col int, now time.Time) string {
	switch col {
	case qcRequester:
		return c.Requester
	case qcTool:
		return c.Tool
	case qcTarget:
		return c.Target
	case qcShape:
		return c.Shape
	case qcRouted:
		switch v.group(c) {
		case routedToOperator:
			return "you"
		case unroutable:
			return "unroutable"
		}
		return c.Authority
	case qcAge:
		return since(now, c.Created)
	case qcLeft:
		if c.Expires.IsZero() {
			return "—"
		}
		if !now.Before(c.Expires) {
			return "expired"
		}
		return age(c.Expires.Sub(now))
	}
	return ""
}

func (v *queueView) paint(c *Confirmation, col int) paint {
	if !v.actionable(c) {
		return v.styles.dim
	}
	return v.styles.plain
}

func confirmationHaystack(c *Confirmation, dst []byte) []byte {
	dst = appendLower(dst, c.Requester, c.Tool, c.Target, c.Shape, c.Boundary, c.Authority, c.ID, c.CorrelationID)
	for _, a := range c.Arguments {
		dst = appendLower(append(dst, 0), a.Name+"="+a.Value)
	}
	return dst
}

// load replaces every row with the snapshot's confirmations; the table
// keeps pointers into cs, which the console owns from then on.
func (v *queueView) load(operator string, cs []Confirmation, now time.Time) {
	v.operator = operator
	fresh := v.table.Total() == 0
	v.table.Begin(len(cs) + v.table.Total())
	for i := range cs {
		v.table.Upsert(cs[i].ID, &cs[i], 0, now)
	}
	if !fresh {
		dropMissing(v.table, len(cs), func(i int) string { return cs[i].ID })
	}
	v.table.End()
	v.recount()
}

// add inserts a newly pending confirmation.
func (v *queueView) add(c Confirmation, now time.Time) {
	_, had := v.table.Get(c.ID)
	v.table.Upsert(c.ID, &c, 0, now)
	if !had && v.actionable(&c) {
		v.mine++
	}
}

// remove drops a confirmation; it reports whether it was held.
func (v *queueView) remove(id string) bool {
	c, ok := v.table.Get(id)
	if !ok {
		return false
	}
	if v.actionable(c) {
		v.mine--
	}
	v.table.Delete(id)
	return true
}

func (v *queueView) recount() {
	v.mine = 0
	for _, r := range v.table.sorted {
		if !r.gone && v.actionable(r.val) {
			v.mine++
		}
	}
}

// selected returns the selected confirmation.
func (v *queueView) selected() (*Confirmation, bool) { return v.table.Get(v.table.Selected()) }

// jump selects a confirmation by requester address, id or correlation id.
func (v *queueView) jump(q string) bool {
	q = strings.ToLower(strings.TrimSpace(q))
	if q == "" {
		return false
	}
	match := func(c *Confirmation) bool {
		return c.Requester == q || strings.ToLower(c.ID) == q || strings.ToLower(c.CorrelationID) == q
	}
	if v.table.SelectFirst(match) {
		return true
	}
	if v.table.Filter() == "" {
		return false
	}
	v.table.SetFilter("")
	return v.table.SelectFirst(match)
}

func (v *queueView) setSize(width, height int) {
	v.width, v.height = width, height
	v.table.SetSize(width, height-v.paneHeight())
}

// paneHeight is the height of the detail pane under the table: three
// fifths of the body, as an operator reads more than they scan here.
func (v *queueView) paneHeight() int { return v.pane.under(v.height, 3, 5) }

// paneLines is the selected confirmation's detail, wrapped to the width.
func (v *queueView) paneLines(now time.Time) (title string, lines []string) {
	c, ok := v.selected()
	if !ok {
		v.pane.show("")
		return "detail", []string{"no confirmation selected"}
	}
	v.pane.show(c.ID)
	return "confirmation " + c.ID, wrapFields(v.styles, v.confirmationDetail(c, now), v.width)
}

func (v *queueView) view(now time.Time) string {
	if v.pane.zoomed {
		title, lines := v.paneLines(now)
		return v.pane.view(v.styles, title, lines, v.width, v.height)
	}
	var out string
	if v.table.Total() == 0 {
		out = fit(v.styles.Dim.Render("  no pending confirmations"), v.width, v.height-v.paneHeight())
	} else {
		out = v.table.View(now)
	}
	if !v.pane.open {
		return out
	}
	title, lines := v.paneLines(now)
	return out + "\n" + v.pane.view(v.styles, title, lines, v.width, v.paneHeight())
}

// confirmationDetail is what an operator reads before deciding: every
// value whole, wrapped rather than cut.
func (v *queueView) confirmationDetail(c *Confirmation, now time.Time) []field {
	routed := c.Authority
	switch v.group(c) {
	case routedToOperator:
		routed += " (you)"
	case routedToOther:
		routed += " (not yours: view only)"
	case unroutable:
		routed = "nobody: unroutable, view only"
	}
	fs := []field{
		{"requester    ", c.Requester},
		{"routed to    ", routed},
		{"boundary     ", c.Boundary},
		{"tool         ", c.Tool},
		{"action       ", c.Action},
		{"target       ", c.Target},
		{"shape        ", c.Shape},
	}
	if len(c.Arguments) > 0 {
		fs = append(fs, field{"arguments", ""})
		for _, a := range c.Arguments {
			lines := strings.Split(a.Value, "\n")
			fs = append(fs, field{"  " + a.Name + " ", lines[0]})
			for _, l := range lines[1:] {
				fs = append(fs, field{"    ", l})
			}
		}
	}
	fs = append(fs, []field{
		{"stamp hash   ", c.StampHash},
		{"correlation  ", c.CorrelationID},
		{"age / left   ", since(now, c.Created) + " / " + v.cell(c, qcLeft, now)},
	}...)
	if c.MatrixDiff != "" {
		fs = append(fs, field{"class-matrix diff", ""})
		for _, d := range strings.Split(strings.TrimRight(c.MatrixDiff, "\n"), "\n") {
			fs = append(fs, field{"  ", d})
		}
	}
	return fs
}
