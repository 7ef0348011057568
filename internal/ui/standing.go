package ui

import (
	"strconv"
	"time"

	tea "charm.land/bubbletea/v2"
)

// DefaultSettle is how long no key may follow a decision key before the
// decision is sent (see standing).
const DefaultSettle = 300 * time.Millisecond

// standing is the second protection on decisions: a decision key must
// stand alone. People type into the wrong window; a sentence typed into
// the queue ("are you there", "looks good, approve it⏎") holds `a`, `A`,
// `d`, `y` and `enter` at typing speed, 50–250 ms apart. A decision key
// counts only when no key came for the arming time before it (the quiet)
// and none comes for the settle time after it; the decision waits out the
// settle time and any key meanwhile cancels it. Both sides are needed: a
// sentence's first letter has a quiet before it, its last one a quiet
// after it. The arming of the row (see arming) stays as it was.
type standing struct {
	// last is when the previous key (or paste) came; zero before any.
	last time.Time
	// alone says the key being handled came after the quiet.
	alone bool
	// pending is a decision waiting out the settle time, nil when none is.
	pending *pendingDecision
}

// pendingDecision is a decision key that stood alone before it and now
// waits for the settle time with no key after it.
type pendingDecision struct {
	c  Confirmation
	d  Decision
	at time.Time
	// batch, when set, is approve several's confirmations (c is unset).
	batch []Confirmation
	// ack, when set, is the inbox item an ack key marks read (c is unset):
	// an ack stands alone like a decision.
	ack string
	// answer, when set, is the card the answer dialog's confirm key
	// answers with action (c is unset).
	answer, action string
}

// describe is what a pending key would have done and on what, for the
// status line when typing cancelled it.
func (p *pendingDecision) describe() (outcome, what string) {
	switch {
	case p.ack != "":
		return "acked", "#" + strconv.FormatInt(itemSeq(p.ack), 10)
	case p.answer != "":
		return "answered", "#" + strconv.FormatInt(itemSeq(p.answer), 10) + " with " + p.action
	case p.batch != nil:
		return done(p.d), strconv.Itoa(len(p.batch)) + " confirmations"
	}
	return done(p.d), p.c.Requester + " " + p.c.Operation
}

// isTyping says whether msg is a key the operator typed: a key press or a
// paste. Key releases and focus reports are not typing.
func isTyping(msg tea.Msg) bool {
	switch msg.(type) {
	case tea.KeyPressMsg, tea.PasteMsg:
		return true
	}
	return false
}

// beforeKey is called for every typed key before it is handled: a decision
// still settling was typing after all and is dropped (the key itself is
// handled as usual: no key is ever dropped), and the key is judged alone
// or not.
func (m *Model) beforeKey(now time.Time) {
	if p := m.standing.pending; p != nil {
		m.standing.pending = nil
		outcome, what := p.describe()
		m.setNote(noteWarn, "typing: nothing was "+outcome+" ("+what+"; "+m.aloneRule()+")", 5*time.Second)
	}
	m.standing.alone = m.standing.last.IsZero() || now.Sub(m.standing.last) >= m.opts.Arming
	m.standing.last = now
}

// settle sends a pending decision once the settle time passed with no key.
// Update calls it after every message that is not a key (the frame tick
// comes every 200 ms), so the decision leaves within settle + one tick.
// The row must still be the armed, visible selection: a row that left or
// moved away decides nothing.
func (m *Model) settle(now time.Time) tea.Cmd {
	p := m.standing.pending
	if p == nil || now.Sub(p.at) < m.opts.Settle {
		return nil
	}
	m.standing.pending = nil
	switch {
	case p.batch != nil:
		return m.settleSeveral(p)
	case p.ack != "":
		return m.settleAck(p)
	case p.answer != "":
		return m.settleAnswer(p)
	}
	c, ok := m.queue.table.Get(p.c.ID)
	switch {
	case !ok:
		m.setNote(noteWarn, "that confirmation has left the queue; nothing was sent", 4*time.Second)
		return nil
	case m.armed.id != c.ID:
		m.setNote(noteWarn, "the selection moved: nothing was "+done(p.d), 4*time.Second)
		return nil
	case m.isDeciding(c.ID):
		m.setNote(noteWarn, "already sent: waiting for the hub", 3*time.Second)
		return nil
	}
	return m.decide(c, p.d)
}

// holdDecision starts the settle time of a decision whose key stood alone
// before it, and says in the status line that a key cancels it.
func (m *Model) holdDecision(c *Confirmation, d Decision) {
	m.standing.pending = &pendingDecision{c: *c, d: d, at: m.now()}
	m.setNote(noteInfo, verb(d)+" in "+m.opts.Settle.String()+" unless a key comes: "+c.Requester+" "+c.Operation, 2*time.Second)
}

// typedNote says in the status line that a decision key was typing.
func (m *Model) typedNote(c *Confirmation, d Decision) {
	m.setNote(noteWarn, "typing: nothing was "+done(d)+" ("+c.Requester+"; "+m.aloneRule()+")", 5*time.Second)
}

// aloneRule is the rule in the words of the status line.
func (m *Model) aloneRule() string {
	return "a decision key counts alone: no key " + m.opts.Arming.String() + " before it, none " + m.opts.Settle.String() + " after"
}

// done is a decision's outcome as the status line words it.
func done(d Decision) string {
	switch {
	case d.Approve && d.Remember:
		return "approved and remembered"
	case d.Approve:
		return "approved"
	}
	return "denied"
}
