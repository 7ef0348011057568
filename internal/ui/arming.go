package ui

import "time"

// DefaultArming is how long a confirmation must have been the selected row,
// visible on screen, before a decision key acts on it.
const DefaultArming = 600 * time.Millisecond

// arming is the protection on decisions (issue 9): no key is ever dropped,
// instead `a`, `A` and `d` act only on a confirmation that has been the
// selected row, on screen, for the whole arming time. The console records
// which confirmation is selected and visible, and since when, after every
// message; whatever changed it (the operator's own move, an arrival, a
// decision elsewhere, a reconnect snapshot, a re-sort, a filter, a view
// switch) starts the time again, so a row that slid under the cursor is
// never decided by a key meant for another.
type arming struct {
	// id is the confirmation selected and visible now; "" when none is.
	id string
	// since is when id became selected and visible.
	since time.Time
}

// visibleSelection is the confirmation the operator has in front of them:
// the queue's selected row while the queue view is on screen (its widened
// detail pane shows that row whole), not while the note history covers it
// or the terminal is too small to draw it.
func (m *Model) visibleSelection() string {
	if m.view != viewQueue || !m.loaded || m.notes.open || m.tooSmall() {
		return ""
	}
	m.queue.table.ensure()
	return m.queue.table.Selected()
}

// observeSelection re-arms when the visible selection changed since the
// last message. Update calls it after every message, so every cause of a
// change is covered by the same rule.
func (m *Model) observeSelection(now time.Time) {
	if id := m.visibleSelection(); id != m.armed.id {
		m.armed = arming{id: id, since: now}
	}
}

// armedFor says whether a decision key may act on id now: id has been the
// visible selection for at least the arming time.
func (m *Model) armedFor(id string, now time.Time) bool {
	return id != "" && m.armed.id == id && now.Sub(m.armed.since) >= m.opts.Arming
}

// lookFirst says in the status line why a decision key did nothing.
func (m *Model) lookFirst(c *Confirmation, what string) {
	m.setNote(noteWarn, c.Requester+" just arrived — look first: nothing was "+what+
		" (a decision acts on a row selected for "+m.opts.Arming.String()+")", 4*time.Second)
}
