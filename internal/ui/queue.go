package ui

import (
	"cmp"
	"net/url"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
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
// cell the others do not need for the rows on screen to the target
// (FitPage). The requester is cut in the middle, so its role stays
// visible; the target by cutTarget, so its host or its file does.
// Below 80 columns the age, the tool, then the shape are hidden (the
// detail pane shows them), so down to the smallest usable width (minWidth)
// a row keeps who asks, the target, who decides and the time left.
var queueColumns = []Column{
	qcRequester: {Title: "REQUESTER", Min: 14, Max: 22, Middle: true},
	qcTool:      {Title: "TOOL", Min: 12, Max: 22, Drop: 2},
	qcTarget:    {Title: "TARGET", Min: 19, Middle: true, Cut: cutTarget},
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
	// marks are the confirmations marked for approve several, by id.
	marks map[string]bool
	// touched names the confirmations added or removed since the inbox
	// last followed the queue (syncConfirmations), which then looks at
	// those alone; reloaded says a load replaced every row since, so the
	// inbox's are built again from all of them. The inbox follows after
	// every message, so touched holds one batch's changes at most.
	touched  []string
	reloaded bool
}

func newQueueView(st *Styles) *queueView {
	v := &queueView{styles: st, marks: map[string]bool{}}
	v.table = NewTable(TableSpec[Confirmation]{
		Columns:  queueColumns,
		Key:      confirmationKey,
		Group:    v.group,
		Cell:     v.cell,
		Paint:    v.paint,
		Haystack: confirmationHaystack,
		Tie:      confirmationTie,
		FitPage:  true,
		Marked:   func(c *Confirmation) bool { return v.marks[c.ID] },
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

// cutTarget shortens a target of tw cells to at most w cells, keeping
// what an operator must see to know what is decided: a URL's scheme and
// host whole, its path cut from the left ("external:https://host/…gz"),
// dropping the kind and then the scheme first; a path's file whole, its
// directories cut ("path:memo…/notes.md"). Only a host or a file wider
// than the column is cut itself: a host from the left, so its domain
// stays; a file in its middle, so its extension stays. Other targets are
// cut in the middle.
func cutTarget(text string, tw, w int) string {
	if tw <= w {
		return text
	}
	kind, val, _ := strings.Cut(text, ":")
	if u, err := url.Parse(val); err == nil && u.Scheme != "" && u.Host != "" {
		base := u.Scheme + "://" + u.Host
		if rest, ok := strings.CutPrefix(val, base); ok {
			for _, head := range []string{kind + ":" + base, base, u.Host} {
				if hw := textWidth(head); hw+2 <= w {
					return head + "…" + ansi.TruncateLeft(rest, textWidth(rest)-(w-hw-1), "")
				}
			}
			if hw := textWidth(u.Host); hw > w {
				return "…" + ansi.TruncateLeft(u.Host, hw-(w-1), "")
			}
			return u.Host
		}
	}
	if i := strings.LastIndexByte(text, '/'); i >= 0 {
		file := text[i:]
		if fw := textWidth(file); fw+2 <= w {
			return ansi.Truncate(text[:i], w-fw-1, "") + "…" + file
		}
		file = file[1:]
		return truncateMiddle(file, textWidth(file), w)
	}
	return truncateMiddle(text, tw, w)
}

// targetKept is what cutTarget keeps whole of a target while the width
// allows: a URL's host; else what follows the last slash (a path's file);
// else nothing.
func targetKept(text string) string {
	_, val, _ := strings.Cut(text, ":")
	if u, err := url.Parse(val); err == nil && u.Scheme != "" && u.Host != "" {
		return u.Host
	}
	if i := strings.LastIndexByte(text, '/'); i >= 0 {
		return text[i+1:]
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
	v.reloaded, v.touched = true, v.touched[:0]
}

// add inserts a newly pending confirmation.
func (v *queueView) add(c Confirmation, now time.Time) {
	_, had := v.table.Get(c.ID)
	v.table.Upsert(c.ID, &c, 0, now)
	if !had && v.actionable(&c) {
		v.mine++
	}
	v.touched = append(v.touched, c.ID)
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
	v.touched = append(v.touched, id)
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

// previewMinBody is the smallest body (the lines between the bars) that
// shows the preview under the list: 80×24 has 20.
const previewMinBody = 18

// previewing says whether the preview is shown: the pane closed and room
// for it. The preview is the selected confirmation's bound operation
// (operationFields), so what a decision key acts on is read whole before
// the key is pressed, without opening anything.
func (v *queueView) previewing() bool { return !v.pane.open && v.height >= previewMinBody }

// paneHeight is the height of the detail pane or the preview under the
// table: three fifths of the body, as an operator reads more than they
// scan here.
func (v *queueView) paneHeight() int {
	if v.previewing() {
		return v.height * 3 / 5
	}
	return v.pane.under(v.height, 3, 5)
}

// paneLines is the selected confirmation's detail (its bound operation
// alone in the preview), wrapped to the width.
func (v *queueView) paneLines(now time.Time) (title string, lines []string) {
	c, ok := v.selected()
	if !ok {
		v.pane.show("")
		return "detail", []string{"no confirmation selected"}
	}
	v.pane.show(c.ID)
	if v.previewing() {
		return "confirmation " + c.ID + " · enter: all details", wrapFields(v.styles, v.operationFields(c, now), v.width)
	}
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
	if v.paneHeight() == 0 {
		return out
	}
	title, lines := v.paneLines(now)
	return out + "\n" + v.pane.view(v.styles, title, lines, v.width, v.paneHeight())
}

// operationFields are the bound operation of c as an operator decides it —
// who asks, the tool, the target whole (and a URL's host by itself), the
// shape, every bound argument (a text of several lines line by line), who
// decides and the time left: the one rendering of what a decision allows,
// shared by the preview, the detail pane and the approve-several dialog.
func (v *queueView) operationFields(c *Confirmation, now time.Time) []field {
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
		{"tool         ", c.Tool},
		{"target       ", c.Target},
	}
	if _, val, ok := strings.Cut(c.Target, ":"); ok {
		if u, err := url.Parse(val); err == nil && u.Scheme != "" && u.Host != "" {
			fs = append(fs, field{"  host       ", u.Host})
		}
	}
	fs = append(fs, field{"shape        ", c.Shape})
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
	return append(fs,
		field{"routed to    ", routed},
		field{"left         ", v.cell(c, qcLeft, now)})
}

// confirmationDetail is what an operator reads before deciding: every
// value whole, wrapped rather than cut.
func (v *queueView) confirmationDetail(c *Confirmation, now time.Time) []field {
	fs := append(v.operationFields(c, now),
		field{"boundary     ", c.Boundary},
		field{"action       ", c.Action},
		field{"stamp hash   ", c.StampHash},
		field{"correlation  ", c.CorrelationID},
		field{"age          ", since(now, c.Created)},
	)
	if c.MatrixDiff != "" {
		fs = append(fs, field{"class-matrix diff", ""})
		for _, d := range strings.Split(strings.TrimRight(c.MatrixDiff, "\n"), "\n") {
			fs = append(fs, field{"  ", d})
		}
	}
	return fs
}
