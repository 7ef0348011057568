package confirm

import (
	"time"

	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// Remember is where a decision is remembered, if at all.
type Remember string

// The places a learned choice lives (spec: "Learned prompt fingerprints live
// in the persona experience layer. A prompt that is genuinely class-common
// may instead live in the shared class overlay.").
const (
	RememberNone    Remember = ""
	RememberPersona Remember = "persona"
	RememberClass   Remember = "class"
)

// PromptKey is the exact key of a learned choice (spec: "keyed by stamp
// hash, handler action, normalized target scope, and operation shape"). A
// choice in the persona experience layer is keyed by its stamp hash; one in
// the class overlay by the class key (stamp.ClassKey) instead, so that it
// is shared by every persona of the class with the same capabilities.
type PromptKey struct {
	StampHash     string      `json:"stamp_hash,omitempty"`
	ClassKey      string      `json:"class_key,omitempty"`
	HandlerAction string      `json:"handler_action"`
	Target        Target      `json:"target"`
	Shape         stamp.Shape `json:"shape"`
}

// id is the key's store id; any change to any part changes it.
func (k PromptKey) id() string {
	under := k.StampHash
	if k.ClassKey != "" {
		under = "class " + k.ClassKey
	}
	return digest(under, k.HandlerAction, k.Target.String(), string(k.Shape))
}

// Choice is one learned decision of the prompt registry.
type Choice struct {
	Key PromptKey `json:"key"`
	// Verdict is Allow (a remembered approval) or Deny (a remembered denial).
	Verdict Verdict `json:"verdict"`
	// Boundary is the confirm boundary the choice answers.
	Boundary BoundaryID `json:"boundary"`
	// Persona is who it was learned for; Profile its class.
	Persona string `json:"persona"`
	Profile string `json:"profile"`
	// Where is the experience layer (persona) or the class overlay (class).
	Where          Remember  `json:"where"`
	Decider        Principal `json:"decider"`
	ConfirmationID string    `json:"confirmation_id"`
	CreatedAt      time.Time `json:"created_at"`
	Reason         string    `json:"reason,omitempty"`
}

// ID names the choice for review commands: its key's digest.
func (c Choice) ID() string { return c.Key.id() }

// Current reports whether the choice matches under keys: a persona-layer
// choice by its stamp hash, a class-overlay one by its class key. A
// class-overlay choice stored before class keys existed has none, so it
// matches nothing until a human carries it forward.
func (c Choice) Current(k Keys) bool {
	if c.Where == RememberClass {
		return c.Key.ClassKey != "" && c.Key.ClassKey == k.ClassKey
	}
	return c.Key.StampHash == k.StampHash
}

// Rekeyed is the choice keyed under k instead.
func (c Choice) Rekeyed(k Keys) Choice {
	if c.Where == RememberClass {
		c.Key.StampHash, c.Key.ClassKey = "", k.ClassKey
	} else {
		c.Key.StampHash, c.Key.ClassKey = k.StampHash, ""
	}
	return c
}

// apply turns a confirm decision into the remembered one. It is called only
// for confirm verdicts: a choice never turns a deny into an allow, and never
// reaches a tool the stamp does not expose (those are denied before). A
// confirmation that may not be remembered (a footnote relay, a credential
// change ...: NotRemembered) is asked every time, whatever is stored.
func (c Choice) apply(d Decision) Decision {
	if NotRemembered(KindOperation, d.Boundary) != "" {
		return d
	}
	if c.Verdict == Allow {
		return Decision{Verdict: Allow, Boundary: d.Boundary, Remembered: true,
			Reason: "remembered approval by " + c.Decider.String() + " (" + c.ConfirmationID + ")"}
	}
	return Decision{Verdict: Deny, Boundary: BoundaryRememberedDenial, Remembered: true,
		Reason: "remembered denial at " + d.Boundary.String() + " by " + c.Decider.String() + " (" + c.ConfirmationID + ")"}
}
