package confirm

import (
	"fmt"

	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// Keys are what a persona's learned choices are matched under now: its
// stamp hash (the persona experience layer) and its class key
// (stamp.ClassKey, the shared class overlay).
type Keys struct {
	StampHash string `json:"stamp_hash"`
	ClassKey  string `json:"class_key"`
}

// KeysOf are the keys of a stamp whose canonical hash is hash.
func KeysOf(st *stamp.Stamp, hash string) (Keys, error) {
	ck, err := stamp.ClassKey(*st)
	return Keys{StampHash: hash, ClassKey: ck}, err
}

// RememberRule is exactly what "approve and remember" (or "deny and
// remember") of one confirmation stores in the prompt registry: where, the
// exact key, and the boundary the choice answers.
type RememberRule struct {
	// Where is the persona experience layer or the class overlay.
	Where Remember `json:"where"`
	// Key: StampHash set for the persona layer, ClassKey for the class
	// overlay; handler action, normalized target and shape always.
	Key PromptKey `json:"key"`
	// Boundary is the confirm boundary the choice answers.
	Boundary BoundaryID `json:"boundary"`
	// Persona is who it is learned for; Profile its class.
	Persona string `json:"persona"`
	Profile string `json:"profile"`
}

// String is the rule in one line, as a dialog or the CLI shows it.
func (r RememberRule) String() string {
	key := "stamp " + r.Key.StampHash
	where := "persona " + r.Persona
	if r.Where == RememberClass {
		key, where = "class key "+r.Key.ClassKey, "class "+r.Profile
	}
	return fmt.Sprintf("%s (%s): %s %s on %s [%s]", where, key, r.Key.HandlerAction, r.Key.Shape, r.Key.Target, r.Boundary)
}

// NotRemembered says why a confirmation of kind k at boundary b may not be
// remembered, or "" when it may. Only a persona's tool call is learned, and
// only at a boundary the boundary table does not mark (NotRemembered).
func NotRemembered(k Kind, b BoundaryID) string {
	switch k {
	case KindActivation:
		return "an activation grants a new stamp's permissions; each is reviewed by the bound human"
	case KindRetirement:
		return "a retirement is decided once, for one persona"
	case KindOperation:
	default:
		return fmt.Sprintf("a %q confirmation is not a persona's tool call", k)
	}
	info := b.Info()
	if info.Verdict != Confirm {
		return "only a confirm verdict is asked, and only an asked operation is remembered"
	}
	return info.NotRemembered
}

// RememberRule is the rule "approve and remember" stores for c: the persona
// experience layer, keyed by c's stamp hash (RememberRuleIn(RememberClass)
// is the class overlay's). The error wraps ErrNotRememberable and says why
// c may not be remembered.
func (c *Confirmation) RememberRule() (RememberRule, error) {
	return c.RememberRuleIn(RememberPersona)
}

// RememberRuleIn is the rule remembering c in where stores: for the persona
// layer keyed by c's stamp hash, for the class overlay by the class key
// recorded when c was queued. It works on the record alone.
func (c *Confirmation) RememberRuleIn(where Remember) (RememberRule, error) {
	refuse := func(why string) (RememberRule, error) {
		return RememberRule{}, fmt.Errorf("remember %s (%s %s at %s): %s: %w",
			c.ID, c.Kind, c.Operation.Tool, c.Boundary, why, ErrNotRememberable)
	}
	if why := NotRemembered(c.Kind, c.Boundary); why != "" {
		return refuse(why)
	}
	r := RememberRule{Where: where, Boundary: c.Boundary, Persona: c.Operation.Persona, Profile: c.Profile,
		Key: PromptKey{HandlerAction: c.Operation.HandlerAction, Target: c.Operation.Target, Shape: c.Operation.Shape}}
	switch where {
	case RememberPersona:
		r.Key.StampHash = c.StampHash
	case RememberClass:
		if c.ClassKey == "" {
			return refuse("it was queued before class keys were recorded; remember it for the persona instead")
		}
		r.Key.ClassKey = c.ClassKey
	default:
		return refuse(fmt.Sprintf("%q is neither the persona layer nor the class overlay", where))
	}
	return r, nil
}
