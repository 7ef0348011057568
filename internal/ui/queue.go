package ui

import (
	"strings"
	"time"
)

// The queue table's columns, in order.
const (
	qcRequester = iota
	qcBoundary
	qcOperation
	qcRouted
	qcAge
	qcLeft
)

var queueColumns = []Column{
	qcRequester: {Title: "REQUESTER", Min: 16, Max: 22},
	qcBoundary:  {Title: "BOUNDARY", Min: 12, Max: 22},
	qcOperation: {Title: "OPERATION", Min: 16, Max: 60},
	qcRouted:    {Title: "ROUTED TO", Min: 10, Max: 16},
	qcAge:       {Title: "AGE", Min: 4, Max: 5, Right: true},
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
	detail   bool
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
	case qcBoundary:
		return SortKey{S: c.Boundary}
	case qcOperation:
		return SortKey{S: c.Operation}
	case qcRouted:
		return SortKey{S: c.Authority}
	case qcAge: // ascending: youngest first
		return SortKey{N: -c.Created.UnixNano()}
	case qcLeft:
		return SortKey{N: c.Expires.UnixNano()}
	}
	return SortKey{}
}

func (v *queueView) cell(c *Confirmation, col int, now time.Time) string {
	switch col {
	case qcRequester:
		return c.Requester
	case qcBoundary:
		return c.Boundary
	case qcOperation:
		return c.Operation
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
	return appendLower(dst, c.Requester, c.Boundary, c.Operation, c.Authority, c.ID, c.CorrelationID)
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

func (v *queueView) paneHeight() int {
	if !v.detail {
		return 0
	}
	return min(14, v.height*3/5)
}

func (v *queueView) toggleDetail() {
	v.detail = !v.detail
	v.setSize(v.width, v.height)
}

func (v *queueView) view(now time.Time) string {
	var out string
	if v.table.Total() == 0 {
		out = fit(v.styles.Dim.Render("  no pending confirmations"), v.width, v.height-v.paneHeight())
	} else {
		out = v.table.View(now)
	}
	if !v.detail {
		return out
	}
	c, ok := v.selected()
	lines := []string{"no confirmation selected"}
	if ok {
		lines = v.confirmationDetail(c, now)
	}
	return out + "\n" + pane(v.styles, lines, v.width, v.paneHeight())
}

// confirmationDetail is what an operator reads before deciding.
func (v *queueView) confirmationDetail(c *Confirmation, now time.Time) []string {
	l := v.styles.Label.Render
	routed := c.Authority
	switch v.group(c) {
	case routedToOperator:
		routed += " (you)"
	case routedToOther:
		routed += " (not yours: view only)"
	case unroutable:
		routed = "nobody: unroutable, view only"
	}
	lines := []string{
		l("requester    ") + c.Requester,
		l("routed to    ") + routed,
		l("boundary     ") + c.Boundary,
		l("operation    ") + c.Operation + " (" + c.Action + ")",
		l("stamp hash   ") + c.StampHash,
		l("correlation  ") + c.CorrelationID,
		l("age / left   ") + since(now, c.Created) + " / " + v.cell(c, qcLeft, now),
	}
	if c.MatrixDiff != "" {
		lines = append(lines, l("class-matrix diff"))
		for _, d := range strings.Split(strings.TrimRight(c.MatrixDiff, "\n"), "\n") {
			lines = append(lines, "  "+d)
		}
	}
	return lines
}
