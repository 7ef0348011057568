package ui

import "time"

// DefaultArming is how long a confirmation must have been the selected row,
// visible on screen, before a decision key acts on it.
const DefaultArming = 600 * time.Millisecond

// arming is the protection on decisions: no key is ever dropped,
// instead `a`, `A` and `d` act only on a confirmation that has been the
// selected row, on screen, for the whole arming time. The console records
// which confirmation is selected and visible, and since when, after every
// message; whatever changed it (the operator's own move, an arrival, a
// decision elsewhere, a reconnect snapshot, a re-sort, a filter, a view
// switch) starts the time again, so a row that slid under the cursor is
// never decided by a key meant for another.
type arming struct {
	// id is the confirmation selected and visible now; "" when none is.
	// view is the view showing it: the same confirmation in the queue
	// and in the inbox is two rows in two places, each armed on its own.
	id   string
	view viewID
	// since is when id became selected and visible.
	since time.Time
	// byKey says the operator's own key changed the selection (a move, a
	// view switch), not an arrival or a change elsewhere: the status line
	// then does not say the row "just arrived".
	byKey bool
}

// visibleSelection is the confirmation the operator has in front of them:
// the queue's selected row while the queue view is on screen (its widened
// detail pane shows that row whole), or the inbox's selected row when it
// is a confirmation, not while the note history covers it or the terminal
// is too small to draw it.
func (m *Model) visibleSelection() string {
	if !m.loaded || m.notes.open || m.tooSmall() {
		return ""
	}
	switch m.view {
	case viewQueue:
		m.queue.table.ensure()
		return m.queue.table.Selected()
	case viewInbox:
		if m.inboxClient == nil { // the view says it is not wired: no row is on screen
			return ""
		}
		m.inbox.table.ensure()
		if c, ok := m.inbox.selectedConfirmation(); ok {
			return c.ID
		}
	}
	return ""
}

// observeSelection re-arms when the visible selection changed since the
// last message; byKey says the message was a key the operator typed.
// Update calls it after every message, so every cause of a change is
// covered by the same rule.
func (m *Model) observeSelection(now time.Time, byKey bool) {
	if id := m.visibleSelection(); id != m.armed.id || (id != "" && m.view != m.armed.view) {
		m.armed = arming{id: id, view: m.view, since: now, byKey: byKey}
	}
}

// armedFor says whether a decision key may act on id now: id has been the
// visible selection for at least the arming time.
func (m *Model) armedFor(id string, now time.Time) bool {
	return id != "" && m.armed.id == id && m.armed.view == m.view && now.Sub(m.armed.since) >= m.opts.Arming
}

// lookFirst says in the status line why a decision key did nothing.
func (m *Model) lookFirst(c *Confirmation, what string) {
	m.setNote(noteWarn, c.Requester+" "+m.armedWhy()+" — look first: nothing was "+what+
		" (a decision acts on a row selected for "+m.opts.Arming.String()+")", 4*time.Second)
}

// armedWhy says why the selected row is not armed yet: the operator's own
// move to it, or a change that brought it under the cursor.
func (m *Model) armedWhy() string {
	if m.armed.byKey {
		return "selected just now"
	}
	return "just arrived"
}
