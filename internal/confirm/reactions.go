package confirm

import (
	"fmt"
	"strings"
	"time"
)

// Outcome is the result of a human-surface reaction (spec: "Human-surface
// reactions return a definitive terminal result: applied: true or applied:
// false with a reason. unknown is not a terminal success and remains
// retryable under the same correlation id."). The zero Outcome is unknown.
// A terminal outcome names the reaction it is the outcome of (Item and
// Reaction): its correlation id answers that reaction alone, and a retry
// asking another is refused rather than told "applied".
type Outcome struct {
	// Known is false for unknown: not terminal, retry under the same id.
	Known   bool   `json:"known"`
	Applied bool   `json:"applied"`
	Reason  string `json:"reason,omitempty"`
	// Item and Reaction are what was asked: the item reacted to and the
	// reaction, as the requester sent them.
	Item     string    `json:"item,omitempty"`
	Reaction string    `json:"reaction,omitempty"`
	At       time.Time `json:"at,omitzero"`
}

// Unknown is the outcome that is not yet known.
var Unknown = Outcome{}

// Applied is the terminal success of reaction on item.
func Applied(item, reaction string) Outcome {
	return Outcome{Known: true, Applied: true, Item: item, Reaction: reaction}
}

// NotApplied is the terminal refusal of reaction on item, with the reason
// an operator reads; PlanOutcome refuses to record it without one.
func NotApplied(item, reaction, reason string) Outcome {
	return Outcome{Known: true, Item: item, Reaction: reaction, Reason: reason}
}

// Check says why o cannot be recorded as a terminal outcome, or nil.
func (o Outcome) Check() error {
	switch {
	case o.Item == "" || o.Reaction == "":
		return fmt.Errorf("%w (item %q, reaction %q)", ErrOutcomeUnbound, o.Item, o.Reaction)
	case !o.Applied && strings.TrimSpace(o.Reason) == "":
		return fmt.Errorf("reaction %s on %s: %w", o.Reaction, o.Item, ErrNoOutcomeReason)
	}
	return nil
}

// String is the reaction and its outcome as an operator reads it.
func (o Outcome) String() string {
	switch {
	case !o.Known:
		return "unknown"
	case o.Item == "" && o.Reaction == "":
		return "a reaction recorded before outcomes named theirs"
	case o.Applied:
		return fmt.Sprintf("%s on %s: applied", o.Reaction, o.Item)
	}
	return fmt.Sprintf("%s on %s: not applied (%s)", o.Reaction, o.Item, o.Reason)
}
