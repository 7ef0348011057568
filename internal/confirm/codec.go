package confirm

import (
	"encoding/json"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/jsonscan"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// A confirmation request's answer is decoded by every caller that asks
// (a persona runtime through the hub client, at thousands a second), and
// each new confirmation once more by the hub's change watcher. Through
// encoding/json that was about a tenth of the socket path's CPU: a
// validating pass over the whole answer, then reflection, then the same
// again for the confirmation (its UnmarshalJSON). So the compact shape
// encoding/json writes for an operation's pending confirmation is read on a
// fast path (jsonscan). Anything else — a decision record, a compressed
// detail, escapes, whitespace, other keys — goes to encoding/json whole, so
// the fast path is an optimisation, never a second format
// (FuzzDecodeResult checks that both read the same).

// DecodeResult reads a request's answer, Result's JSON.
func DecodeResult(data []byte) (Result, error) {
	if r, ok := fastResult(data); ok {
		return r, nil
	}
	var r Result
	err := json.Unmarshal(data, &r)
	return r, err
}

// fastResult reads Result's JSON on the fast path; ok=false for anything
// it does not read.
func fastResult(data []byte) (r Result, ok bool) {
	d := jsonscan.New(data)
	read := d.Object(func(key string) bool {
		switch key {
		case "status":
			s, ok := d.Str()
			r.Status = Status(s)
			return ok
		case "decision":
			return fastDecision(&d, &r.Decision)
		case "confirmation":
			if d.Null() {
				r.Confirmation = nil
				return true
			}
			c := new(Confirmation)
			r.Confirmation = c
			return fastConfirmation(&d, c)
		}
		return false
	})
	return r, read && d.Done()
}

// Standing is where a confirmation stands: the fields of its record by
// which the hub counts the pending confirmations of each persona and each
// authority, and wakes the requests waiting for a decision.
type Standing struct {
	ID        string    `json:"id"`
	PersonaID string    `json:"persona_id"`
	Authority Principal `json:"authority"`
	State     State     `json:"state"`
}

// DecodeStanding reads a confirmation's Standing from its JSON (a stored
// record, an answer's or a change event's). The hub's watcher reads it
// from every confirmation event, one or more a request: through
// encoding/json that is a validating pass over the whole record and then
// reflection, about three times what the fast path takes for a pending
// operation's record. Anything the fast path declines (a decided
// confirmation, a compressed detail) is read by encoding/json for these
// four fields alone.
func DecodeStanding(data []byte) (Standing, error) {
	d := jsonscan.New(data)
	var c Confirmation
	if fastConfirmation(&d, &c) && d.Done() {
		return Standing{ID: c.ID, PersonaID: c.PersonaID, Authority: c.Authority, State: c.State}, nil
	}
	var s Standing
	err := json.Unmarshal(data, &s)
	return s, err
}

func fastDecision(d *jsonscan.Scanner, v *Decision) bool {
	return d.Object(func(key string) (ok bool) {
		switch key {
		case "verdict":
			return d.Text(&v.Verdict)
		case "boundary":
			return d.Text(&v.Boundary)
		case "reason":
			v.Reason, ok = d.Str()
		case "remembered":
			v.Remembered, ok = d.Bool()
		}
		return ok
	})
}

// fastConfirmation reads a confirmation's JSON into c, which it fills as
// encoding/json would; it declines a decision record (a decided
// confirmation) and a compressed detail.
func fastConfirmation(d *jsonscan.Scanner, c *Confirmation) bool {
	return d.Object(func(key string) (ok bool) {
		if dst := confirmationString(c, key); dst != nil {
			*dst, ok = d.Str()
			return ok
		}
		switch key {
		case "requester":
			return d.Text(&c.Requester)
		case "authority":
			return d.Text(&c.Authority)
		case "route":
			return d.Text(&c.Route)
		case "boundary":
			return d.Text(&c.Boundary)
		case "unroutable":
			c.Unroutable, ok = d.Bool()
		case "operation":
			return fastOperation(d, &c.Operation)
		case "created_at":
			return fastTime(d, &c.CreatedAt)
		case "expires_at":
			return fastTime(d, &c.ExpiresAt)
		case "decision":
			// Only its absence: a decided confirmation is rare here.
			c.Decision = nil
			return d.Null()
		}
		return ok
	})
}

func confirmationString(c *Confirmation, key string) *string {
	switch key {
	case "id":
		return &c.ID
	case "kind":
		return (*string)(&c.Kind)
	case "authority_binding":
		return &c.AuthorityBinding
	case "persona_id":
		return &c.PersonaID
	case "profile":
		return &c.Profile
	case "stamp_hash":
		return &c.StampHash
	case "class_key":
		return &c.ClassKey
	case "correlation_id":
		return &c.CorrelationID
	case "fingerprint":
		return &c.Fingerprint
	case "reason":
		return &c.Reason
	case "detail":
		return &c.Detail
	case "request_reason":
		return &c.RequestReason
	case "state":
		return (*string)(&c.State)
	}
	return nil
}

func fastOperation(d *jsonscan.Scanner, op *Operation) bool {
	return d.Object(func(key string) (ok bool) {
		switch key {
		case "persona":
			op.Persona, ok = d.Str()
		case "generation":
			op.Generation, ok = d.Int()
		case "tool":
			op.Tool, ok = d.Str()
		case "handler_action":
			op.HandlerAction, ok = d.Str()
		case "shape":
			var s string
			s, ok = d.Str()
			op.Shape = stamp.Shape(s)
		case "target":
			return fastTarget(d, &op.Target)
		case "arguments":
			return fastArguments(d, &op.Arguments)
		}
		return ok
	})
}

// fastArguments reads an operation's bound arguments as encoding/json
// does: null leaves them as they are, [] is an empty list.
func fastArguments(d *jsonscan.Scanner, args *[]Argument) bool {
	if d.Null() {
		return true
	}
	if !d.Byte('[') {
		return false
	}
	out := []Argument{}
	for !d.Byte(']') {
		if len(out) > 0 && !d.Byte(',') {
			return false
		}
		var a Argument
		if !d.Object(func(key string) (ok bool) {
			switch key {
			case "name":
				a.Name, ok = d.Str()
			case "value":
				a.Value, ok = d.Str()
			}
			return ok
		}) {
			return false
		}
		out = append(out, a)
	}
	*args = out
	return true
}

func fastTarget(d *jsonscan.Scanner, t *Target) bool {
	return d.Object(func(key string) (ok bool) {
		switch key {
		case "kind":
			return d.Text(&t.Kind)
		case "value":
			t.Value, ok = d.Str()
		case "workspace":
			t.Workspace, ok = d.Str()
		case "scope":
			t.Scope, ok = d.Str()
		case "project":
			t.Project, ok = d.Str()
		case "task":
			t.Task, ok = d.Str()
		}
		return ok
	})
}

// fastTime reads a time as encoding/json does: null leaves it as it is.
func fastTime(d *jsonscan.Scanner, t *time.Time) bool {
	return d.Null() || d.Text(t)
}
