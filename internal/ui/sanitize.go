package ui

import (
	"strings"
	"unicode/utf8"
)

// Every string the hub sends was written, in the end, by someone else: a
// persona's summary, a requester's operation, a decided-by note. Such text
// must never reach the terminal as control sequences (a clear screen, an
// OSC 52 clipboard write, a title change). It is cleaned once, where it
// enters the console's model, so every view draws it as plain text.

// clean replaces C0 controls, DEL, C1 controls and invalid UTF-8 (whose
// bytes a terminal may read as C1) with U+FFFD. Clean text is returned
// as is, without allocating.
func clean(s string) string {
	i := 0
	for i < len(s) && s[i] >= 0x20 && s[i] < 0x7f {
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for _, r := range s[i:] {
		if r < 0x20 || r >= 0x7f && r <= 0x9f {
			r = utf8.RuneError
		}
		b.WriteRune(r) // an invalid byte ranges as RuneError: written as U+FFFD
	}
	return b.String()
}

// cleanLines is clean for multi-line text: line breaks are kept, every
// line is cleaned.
func cleanLines(s string) string {
	if clean(s) == s {
		return s
	}
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = clean(lines[i])
	}
	return strings.Join(lines, "\n")
}

// sanitizeSnapshot cleans a snapshot's shown text in place; the console
// owns the snapshot from the moment it arrives. IDs are kept: they are
// sent back to the hub, never drawn.
func sanitizeSnapshot(s *Snapshot) {
	s.Installation, s.Home, s.Operator = clean(s.Installation), clean(s.Home), clean(s.Operator)
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
	c.DecidedBy, c.Outcome = clean(c.DecidedBy), clean(c.Outcome)
}

func sanitizePersona(p *Persona) {
	p.Address, p.Name, p.Class = clean(p.Address), clean(p.Name), clean(p.Class)
	p.State = PresenceState(clean(string(p.State)))
	p.Activity, p.Summary = clean(p.Activity), clean(p.Summary)
	p.StampHash, p.StampSummary = clean(p.StampHash), clean(p.StampSummary)
	if dirtyBindings(p.Bindings) {
		bs := make([]Binding, len(p.Bindings)) // the slice may be shared with an older version
		for i, b := range p.Bindings {
			bs[i] = Binding{Kind: clean(b.Kind), Target: clean(b.Target)}
		}
		p.Bindings = bs
	}
	if dirtySeats(p.Seats) {
		ss := make([]SeatRecord, len(p.Seats))
		for i, s := range p.Seats {
			s.Name, s.State = clean(s.Name), clean(s.State)
			ss[i] = s
		}
		p.Seats = ss
	}
}

func dirtyBindings(bs []Binding) bool {
	for _, b := range bs {
		if clean(b.Kind) != b.Kind || clean(b.Target) != b.Target {
			return true
		}
	}
	return false
}

func dirtySeats(ss []SeatRecord) bool {
	for _, s := range ss {
		if clean(s.Name) != s.Name || clean(s.State) != s.State {
			return true
		}
	}
	return false
}

func sanitizeConfirmation(c *Confirmation) {
	c.CorrelationID, c.Requester, c.Authority = clean(c.CorrelationID), clean(c.Requester), clean(c.Authority)
	c.Boundary, c.Operation, c.Action = clean(c.Boundary), clean(c.Operation), clean(c.Action)
	c.StampHash, c.MatrixDiff = clean(c.StampHash), cleanLines(c.MatrixDiff)
	r := &c.Remember
	r.Overlay, r.Key, r.Action, r.Target = clean(r.Overlay), clean(r.Key), clean(r.Action), clean(r.Target)
	r.Shape, r.Refusal = clean(r.Shape), clean(r.Refusal)
}
