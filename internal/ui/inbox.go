package ui

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/virgo-hub/virgo-tui/internal/termtext"
)

// inboxKeep bounds the items the inbox view holds: the newest are kept, the
// oldest dropped (the command line pages through all of them), so a
// persona cannot grow the console without limit.
const inboxKeep = 500

// The inbox table's columns, in order.
const (
	icThread = iota
	icFrom
	icKind
	icText
	icState
	icAge
)

// inboxColumns fit 80 columns; narrower, the kind and the age go first.
var inboxColumns = []Column{
	icThread: {Title: "THREAD", Min: 6, Max: 7, Right: true},
	icFrom:   {Title: "FROM", Min: 12, Max: 22, Middle: true},
	icKind:   {Title: "KIND", Min: 7, Max: 9, Drop: 2},
	icText:   {Title: "TEXT", Min: 10},
	icState:  {Title: "STATE", Min: 6, Max: 12},
	icAge:    {Title: "AGE", Min: 3, Max: 4, Right: true, Drop: 1},
}

// inboxRow is an item with its sequence numbers read once from its ids,
// or a confirmation routed to the operator (conf set, the item empty).
type inboxRow struct {
	InboxItem
	seq, thread int64
	// conf is the operator's pending confirmation this row shows: the
	// inbox's view of the queue (syncConfirmations), never stored in the
	// channel.
	conf *Confirmation
}

// The inbox's groups: confirmations waiting for the operator first.
const (
	inboxConfirmations = iota
	inboxItems
)

// kindConfirm is the KIND column of a confirmation row.
const kindConfirm = "confirm"

// inboxView is the fifth view: the operator's inbox as threads (newest
// thread first, each in the order written), who is typing, and the
// selected item whole in a detail pane, open from the start. Above the
// threads, the confirmations routed to the operator: virgo-channel carries
// them (the spec routes a global-boundary confirmation "to the persona's
// bound human authority through virgo-channel"), read from the queue, so
// they are decided here under the queue's rules and leave both views at
// once.
type inboxView struct {
	styles *Styles
	table  *Table[inboxRow]
	// queue is the confirmations' one source; confs the ids of the
	// confirmation rows built from it.
	queue  *queueView
	confs  map[string]bool
	pane   detailPane
	width  int
	height int
	// held lists the ids held, oldest first, to drop the oldest past inboxKeep.
	held      []string
	typing    map[string]Typing
	unread    int
	reactions []string
}

func newInboxView(st *Styles, q *queueView) *inboxView {
	v := &inboxView{styles: st, typing: map[string]Typing{}, pane: detailPane{open: true}, queue: q, confs: map[string]bool{}}
	v.table = NewTable(TableSpec[inboxRow]{
		Columns: inboxColumns,
		Key:     inboxKey,
		Group: func(r *inboxRow) int {
			if r.conf != nil {
				return inboxConfirmations
			}
			return inboxItems
		},
		Cell: func(r *inboxRow, col int, now time.Time) string {
			if r.conf != nil {
				return v.confirmationCell(r.conf, col, now)
			}
			return inboxCell(r, col, now)
		},
		Paint: func(r *inboxRow, col int) paint {
			if r.conf == nil && (r.FromHuman || r.Acked) {
				return st.dim
			}
			return st.plain
		},
		Haystack: func(r *inboxRow, dst []byte) []byte {
			if r.conf != nil {
				return confirmationHaystack(r.conf, appendLower(dst, kindConfirm))
			}
			return appendLower(dst, r.Persona, r.Name, r.Kind, r.Title, r.Text)
		},
		Tie: func(a, b *inboxRow) int { return cmp.Compare(a.seq, b.seq) },
		Cut: func(r *inboxRow, col int) func(text string, tw, w int) string {
			if r.conf != nil && col == icText {
				return cutOperation
			}
			return nil
		},
		// The bounded columns take what their cells need, so that the
		// text — a confirmation's target with its host — gets the rest.
		FitPage: true,
	}, st)
	return v
}

// followQueue keeps the confirmation rows in line with the queue while
// the inbox is shown (syncConfirmations). Hidden, it builds nothing: what
// the queue changed meanwhile only marks the rows to be built again when
// the inbox is shown next, so a console that never opens its inbox builds
// no row for each of the operator's confirmations (at 100,000
// confirmations, a third of them the operator's, those rows doubled the
// CPU time of a cold start).
func (v *inboxView) followQueue(shown bool, now time.Time) {
	if shown {
		v.syncConfirmations(now)
		return
	}
	if q := v.queue; len(q.touched) > 0 {
		q.reloaded, q.touched = true, q.touched[:0]
	}
}

// syncConfirmations brings the confirmation rows in line with the queue
// after it changed: one row per pending confirmation routed to the
// operator, none kept once it left the queue (decided anywhere, expired).
// It follows the confirmations the queue added or removed since
// (queue.touched), so an arrival costs one row, not a pass over every
// confirmation; after a load it builds them all again in one bulk update.
func (v *inboxView) syncConfirmations(now time.Time) {
	q := v.queue
	if q.reloaded {
		q.reloaded = false
		v.rebuildConfirmations(now)
		return
	}
	for _, id := range q.touched {
		c, ok := q.table.Get(id)
		if !ok || !q.actionable(c) {
			if v.confs[id] {
				v.table.Delete(id)
				delete(v.confs, id)
			}
			continue
		}
		v.confs[id] = true
		if old, ok := v.table.Get(id); !ok || old.conf != c {
			v.table.Upsert(id, &inboxRow{conf: c, seq: c.Created.UnixNano()}, 0, now)
		}
	}
	q.touched = q.touched[:0]
}

// rebuildConfirmations builds the confirmation rows again from every row
// of the queue, in one bulk update of the inbox's table.
func (v *inboxView) rebuildConfirmations(now time.Time) {
	q := v.queue
	q.touched = q.touched[:0]
	seen := make(map[string]bool, q.mine)
	v.table.Begin(q.mine)
	for _, r := range q.table.sorted {
		if r.gone || !q.actionable(r.val) {
			continue
		}
		seen[r.id] = true
		if old, ok := v.table.Get(r.id); ok && old.conf == r.val {
			continue
		}
		v.table.Upsert(r.id, &inboxRow{conf: r.val, seq: r.val.Created.UnixNano()}, 0, now)
	}
	v.table.End()
	for id := range v.confs {
		if !seen[id] {
			v.table.Delete(id)
		}
	}
	v.confs = seen
}

// confirmationCell is a confirmation's cell in the inbox's columns: who
// asks, the tool and the target, the time left.
func (v *inboxView) confirmationCell(c *Confirmation, col int, now time.Time) string {
	switch col {
	case icThread:
		return "⚑"
	case icFrom:
		return c.Requester
	case icKind:
		return kindConfirm
	case icText:
		return c.Tool + " " + c.Target
	case icState:
		return "decide " + v.queue.cell(c, qcLeft, now)
	case icAge:
		return since(now, c.Created)
	}
	return ""
}

// inboxToolCells is what a confirmation's tool keeps of the inbox's TEXT
// column when the tool and the target do not fit whole: enough to tell
// one tool from another ("publish…", "delete_…").
const inboxToolCells = 8

// cutOperation shortens a confirmation's "tool target" (confirmationCell)
// too wide for w cells. The target is what is decided, so it is cut by
// the queue's rule (cutTarget) and the tool gives way first — whole, then
// cut to inboxToolCells, then left out — until what cutTarget keeps whole
// (a URL's host, a path's file: targetKept) is whole in the cell. A column
// too narrow for even that gets cutTarget's cut of the target alone.
func cutOperation(text string, tw, w int) string {
	tool, target, ok := strings.Cut(text, " ")
	if !ok {
		return cutTarget(text, tw, w)
	}
	toolW, targetW := textWidth(tool), textWidth(target)
	kept := targetKept(target)
	for _, keep := range []int{toolW, min(toolW, inboxToolCells), 0} {
		room := w
		if keep > 0 {
			room = w - keep - 1
		}
		if room < 2 {
			continue
		}
		cut := target
		if targetW > room {
			cut = cutTarget(target, targetW, room)
		}
		if !strings.Contains(cut, kept) {
			continue
		}
		if keep == 0 {
			return cut
		}
		return ansi.Truncate(tool, keep, "…") + " " + cut
	}
	return cutTarget(target, targetW, w)
}

// itemSeq reads the number of an item id "h-12"; a malformed id sorts first.
func itemSeq(id string) int64 {
	n, err := strconv.ParseInt(strings.TrimPrefix(id, "h-"), 10, 64)
	if err != nil {
		return 0
	}
	return n
}

func inboxKey(r *inboxRow, col int) SortKey {
	if c := r.conf; c != nil { // the confirmations sort among themselves
		switch col {
		case icFrom:
			return SortKey{S: c.Requester}
		case icText:
			return SortKey{S: c.Tool + " " + c.Target}
		case icState:
			return SortKey{N: c.Expires.UnixNano()}
		}
		return SortKey{N: -c.Created.UnixNano()}
	}
	switch col {
	case icThread: // the newest thread first when ascending
		return SortKey{N: -r.thread}
	case icFrom:
		return SortKey{S: r.Persona}
	case icKind:
		return SortKey{S: r.Kind}
	case icText:
		return SortKey{S: strings.ToLower(itemSummary(&r.InboxItem))}
	case icState:
		return SortKey{S: itemState(&r.InboxItem)}
	case icAge:
		return SortKey{N: -r.At.UnixNano()}
	}
	return SortKey{}
}

func inboxCell(r *inboxRow, col int, now time.Time) string {
	switch col {
	case icThread:
		if r.seq != r.thread {
			return "↳"
		}
		return "#" + strconv.FormatInt(r.thread, 10)
	case icFrom:
		if r.FromHuman {
			return "you → " + r.Persona
		}
		return r.Persona
	case icKind:
		return r.Kind
	case icText:
		return itemSummary(&r.InboxItem)
	case icState:
		return itemState(&r.InboxItem)
	case icAge:
		return since(now, r.At)
	}
	return ""
}

// itemSummary is an item in one line: a card's title, a todo card's
// progress, a file's name and size, a message's first line.
func itemSummary(it *InboxItem) string {
	switch it.Kind {
	case ItemCard:
		return it.Title + ": " + firstLine(it.Text)
	case ItemTodo:
		done := 0
		for _, l := range it.Todo {
			if l.Done {
				done++
			}
		}
		return it.Title + " (" + strconv.Itoa(done) + "/" + strconv.Itoa(len(it.Todo)) + " done)"
	case ItemFile:
		if it.File != nil {
			return it.File.Name + " (" + byteSize(it.File.Size) + ")"
		}
	}
	return firstLine(it.Text)
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// itemState says, without colour, whether an item waits for the operator:
// "● new" until acked, then "read" (or the persona's "seen" of a reply),
// a card "answered" once it is (with the dot until acked), with the
// number of reactions.
func itemState(it *InboxItem) string {
	s := "● new"
	switch {
	case it.FromHuman && it.Acked:
		s = "seen"
	case it.FromHuman:
		s = "sent"
	case it.Answer != nil && it.Acked:
		s = "answered"
	case it.Answer != nil:
		s = "● answered"
	case it.Acked:
		s = "read"
	}
	if n := len(it.Reactions); n > 0 {
		s += " +" + strconv.Itoa(n)
	}
	return s
}

// byteSize is a size as people read it.
func byteSize(n int64) string {
	switch {
	case n < 1<<10:
		return strconv.FormatInt(n, 10) + " B"
	case n < 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
}

// load replaces the items with the hub's, keeping the newest inboxKeep.
func (v *inboxView) load(st InboxState, now time.Time) {
	items := st.Items
	if len(items) > inboxKeep {
		items = items[len(items)-inboxKeep:]
	}
	v.table.Begin(len(items) + v.table.Total())
	for _, id := range v.held {
		v.table.Delete(id)
	}
	v.held = v.held[:0]
	for i := range items {
		v.upsert(items[i], now)
	}
	v.table.End()
	v.reactions = st.Reactions
	v.status(st.InboxStatus)
}

// status takes the hub's unread count and typing indicators.
func (v *inboxView) status(s InboxStatus) {
	v.unread = s.Unread
	clear(v.typing)
	for _, t := range s.Typing {
		v.setTyping(t)
	}
}

// upsert adds or replaces one item; past inboxKeep the oldest held goes.
func (v *inboxView) upsert(it InboxItem, now time.Time) {
	sanitizeInboxItem(&it)
	r := &inboxRow{InboxItem: it, seq: itemSeq(it.ID), thread: itemSeq(it.Thread)}
	if r.thread == 0 {
		r.thread = r.seq
	}
	var changed uint64
	if old, ok := v.table.Get(it.ID); ok {
		if itemState(&old.InboxItem) != itemState(&it) {
			changed |= 1 << icState
		}
		if itemSummary(&old.InboxItem) != itemSummary(&it) {
			changed |= 1 << icText
		}
	} else {
		v.held = append(v.held, it.ID)
	}
	v.table.Upsert(it.ID, r, changed, now)
	if len(v.held) > inboxKeep {
		v.table.Delete(v.held[0])
		v.held = slices.Delete(v.held, 0, 1)
	}
}

// setTyping shows (or, with a zero Until, clears) a typing indicator. One
// is kept per generation, so the indicators never outnumber the personas;
// the hub's status replaces them all.
func (v *inboxView) setTyping(t Typing) {
	if t.Until.IsZero() {
		delete(v.typing, t.ID)
		return
	}
	t.Persona, t.Thread = termtext.Clean(t.Persona), termtext.Clean(t.Thread)
	v.typing[t.ID] = t
}

// typingLine names who is typing now, in address order. It is part of the
// render, so it changes nothing: an indicator past its time (the persona
// stopped without saying so) is not shown.
func (v *inboxView) typingLine(now time.Time) string {
	var who []string
	for _, t := range v.typing {
		if !now.Before(t.Until) {
			continue
		}
		w := t.Persona + " is typing"
		if t.Thread != "" {
			w += " in #" + strconv.FormatInt(itemSeq(t.Thread), 10)
		}
		who = append(who, w)
	}
	if len(who) == 0 {
		return v.styles.Dim.Render("  nobody is typing")
	}
	slices.Sort(who)
	return v.styles.Note.Render("  ✎ " + strings.Join(who, ", ") + "…")
}

// selected is the item under the cursor; a confirmation row is no item.
func (v *inboxView) selected() (*InboxItem, bool) {
	r, ok := v.table.Get(v.table.Selected())
	if !ok || r.conf != nil {
		return nil, false
	}
	return &r.InboxItem, true
}

// selectedConfirmation is the confirmation under the cursor, as the queue
// holds it now.
func (v *inboxView) selectedConfirmation() (*Confirmation, bool) {
	r, ok := v.table.Get(v.table.Selected())
	if !ok || r.conf == nil {
		return nil, false
	}
	return v.queue.table.Get(r.conf.ID)
}

// setSize lays the view out: the typing line, the table, the pane.
func (v *inboxView) setSize(width, height int) {
	v.width, v.height = width, height
	v.table.SetSize(width, max(2, height-1-v.paneHeight()))
}

// paneHeight is the detail pane's height under the table: half the body.
func (v *inboxView) paneHeight() int { return v.pane.under(v.height-1, 1, 2) }

// paneLines is the selected item whole.
func (v *inboxView) paneLines(now time.Time) (string, []string) {
	r, ok := v.table.Get(v.table.Selected())
	if !ok {
		v.pane.show("")
		return "item", []string{"nothing here yet: what personas send you shows in this view"}
	}
	if r.conf != nil { // the bound operation, as the queue's preview shows it
		v.pane.show(r.conf.ID)
		return "confirmation " + r.conf.ID, wrapFields(v.styles, v.queue.operationFields(r.conf, now), v.width)
	}
	v.pane.show(r.ID)
	return r.Kind + " #" + strconv.FormatInt(r.seq, 10), wrapFields(v.styles, itemDetail(&r.InboxItem, now), v.width)
}

// itemDetail is everything an item holds, whole.
func itemDetail(it *InboxItem, now time.Time) []field {
	from := it.Persona + " (" + it.Name + ", generation " + strconv.Itoa(it.Generation) + ")"
	if it.FromHuman {
		from = "you, to " + from
	}
	fs := []field{{"from      ", from}, {"sent      ", since(now, it.At) + " ago, " + itemState(it)}}
	if it.ReplyTo != "" {
		fs = append(fs, field{"answers   ", "#" + strconv.FormatInt(itemSeq(it.ReplyTo), 10)})
	}
	if it.Title != "" {
		fs = append(fs, field{"title     ", it.Title})
	}
	for i, l := range strings.Split(it.Text, "\n") {
		if it.Text == "" {
			break
		}
		label := "          "
		if i == 0 {
			label = "text      "
		}
		fs = append(fs, field{label, l})
	}
	if len(it.Actions) > 0 {
		fs = append(fs, field{"actions   ", strings.Join(it.Actions, " · ")})
	}
	if a := it.Answer; a != nil {
		fs = append(fs, field{"answered  ", a.Action + " (by " + a.By + ", " + since(now, a.At) + " ago)"})
	}
	for i, l := range it.Todo {
		mark := "[ ] "
		if l.Done {
			mark = "[x] "
		}
		label := "          "
		if i == 0 {
			label = "todo      "
		}
		fs = append(fs, field{label, strconv.Itoa(i+1) + " " + mark + l.Text})
	}
	if f := it.File; f != nil {
		fs = append(fs, field{"file      ", f.Name + ", " + byteSize(f.Size)}, field{"sha256    ", f.SHA256},
			field{"from path ", f.Path})
	}
	for _, r := range it.Reactions {
		fs = append(fs, field{"reaction  ", r.Reaction + " by " + r.By})
	}
	return fs
}

// view renders the typing line, the table and the pane (or the pane alone,
// zoomed).
func (v *inboxView) view(now time.Time) string {
	top := v.typingLine(now)
	if v.pane.zoomed {
		title, lines := v.paneLines(now)
		return top + "\n" + v.pane.view(v.styles, title, lines, v.width, v.height-1)
	}
	out := top + "\n" + v.table.View(now)
	if !v.pane.open {
		return out
	}
	title, lines := v.paneLines(now)
	return out + "\n" + v.pane.view(v.styles, title, lines, v.width, v.paneHeight())
}

// sanitizeInboxItem cleans everything a persona wrote, once, where it
// enters the model. Ids are kept: they go back to the hub and are drawn
// only as the numbers read from them.
func sanitizeInboxItem(it *InboxItem) {
	it.Persona, it.Name, it.Kind = termtext.Clean(it.Persona), termtext.Clean(it.Name), termtext.Clean(it.Kind)
	it.Title, it.Text = termtext.Clean(it.Title), termtext.CleanLines(it.Text)
	it.Actions = slices.Clone(it.Actions)
	for i := range it.Actions {
		it.Actions[i] = termtext.Clean(it.Actions[i])
	}
	it.Todo = slices.Clone(it.Todo)
	for i := range it.Todo {
		it.Todo[i].Text = termtext.Clean(it.Todo[i].Text)
	}
	if it.File != nil {
		f := *it.File
		f.Name, f.SHA256, f.Path = termtext.Clean(f.Name), termtext.Clean(f.SHA256), termtext.Clean(f.Path)
		it.File = &f
	}
	it.Reactions = slices.Clone(it.Reactions)
	for i := range it.Reactions {
		it.Reactions[i].Reaction, it.Reactions[i].By = termtext.Clean(it.Reactions[i].Reaction), termtext.Clean(it.Reactions[i].By)
	}
	if a := it.Answer; a != nil {
		it.Answer = &CardAnswer{Action: termtext.Clean(a.Action), By: termtext.Clean(a.By), At: a.At}
	}
}
