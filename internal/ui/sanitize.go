package ui

import "github.com/virgo-hub/virgo-tui/internal/termtext"

// Every string the hub sends was written, in the end, by someone else: a
// persona's summary, a requester's operation, a decided-by note. Such text
// must never reach the terminal as control sequences (a clear screen, an
// OSC 52 clipboard write, a title change). It is cleaned once, where it
// enters the console's model, so every view draws it as plain text; what
// counts as unsafe is termtext's one table, shared with the command line.

// sanitizeSnapshot cleans a snapshot's shown text in place; the console
// owns the snapshot from the moment it arrives. IDs are kept: they are
// sent back to the hub, never drawn.
func sanitizeSnapshot(s *Snapshot) {
	s.Installation, s.Home, s.Operator = termtext.Clean(s.Installation), termtext.Clean(s.Home), termtext.Clean(s.Operator)
	for i := range s.Personas {
		sanitizePersona(&s.Personas[i])
	}
	for i := range s.Confirmations {
		sanitizeConfirmation(&s.Confirmations[i])
	}
}

// sanitizeChange cleans one change's shown text in place.
func sanitizeChange(c *Change) {
	switch c.Kind {
	case PersonaChanged:
		sanitizePersona(&c.Persona)
	case ConfirmationPending:
		sanitizeConfirmation(&c.Confirmation)
	}
	c.DecidedBy, c.Outcome = termtext.Clean(c.DecidedBy), termtext.Clean(c.Outcome)
}

func sanitizePersona(p *Persona) {
	p.Address, p.Name, p.Class = termtext.Clean(p.Address), termtext.Clean(p.Name), termtext.Clean(p.Class)
	p.State = PresenceState(termtext.Clean(string(p.State)))
	p.Activity, p.Summary = termtext.Clean(p.Activity), termtext.Clean(p.Summary)
	p.StampHash, p.StampSummary = termtext.Clean(p.StampHash), termtext.Clean(p.StampSummary)
	if dirtyBindings(p.Bindings) {
		bs := make([]Binding, len(p.Bindings)) // the slice may be shared with an older version
		for i, b := range p.Bindings {
			bs[i] = Binding{Kind: termtext.Clean(b.Kind), Target: termtext.Clean(b.Target)}
		}
		p.Bindings = bs
	}
	if dirtySeats(p.Seats) {
		ss := make([]SeatRecord, len(p.Seats))
		for i, s := range p.Seats {
			s.Name, s.State, s.Snapshot = termtext.Clean(s.Name), termtext.Clean(s.State), termtext.Clean(s.Snapshot)
			ss[i] = s
		}
		p.Seats = ss
	}
}

func dirtyBindings(bs []Binding) bool {
	for _, b := range bs {
		if termtext.Clean(b.Kind) != b.Kind || termtext.Clean(b.Target) != b.Target {
			return true
		}
	}
	return false
}

func dirtySeats(ss []SeatRecord) bool {
	for _, s := range ss {
		if termtext.Clean(s.Name) != s.Name || termtext.Clean(s.State) != s.State || termtext.Clean(s.Snapshot) != s.Snapshot {
			return true
		}
	}
	return false
}

func sanitizeConfirmation(c *Confirmation) {
	c.CorrelationID, c.Requester, c.Authority = termtext.Clean(c.CorrelationID), termtext.Clean(c.Requester), termtext.Clean(c.Authority)
	c.Boundary, c.Operation, c.Action = termtext.Clean(c.Boundary), termtext.Clean(c.Operation), termtext.Clean(c.Action)
	c.Tool, c.Target, c.Shape = termtext.Clean(c.Tool), termtext.Clean(c.Target), termtext.Clean(c.Shape)
	c.StampHash, c.MatrixDiff = termtext.Clean(c.StampHash), termtext.CleanLines(c.MatrixDiff)
	for i, a := range c.Arguments {
		c.Arguments[i] = Argument{Name: termtext.Clean(a.Name), Value: termtext.CleanLines(a.Value)}
	}
	r := &c.Remember
	r.Overlay, r.Key, r.Action = termtext.Clean(r.Overlay), termtext.Clean(r.Key), termtext.Clean(r.Action)
	r.Target, r.Shape, r.Refusal = termtext.Clean(r.Target), termtext.Clean(r.Shape), termtext.Clean(r.Refusal)
}
