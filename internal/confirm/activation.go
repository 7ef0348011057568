package confirm

// The pseudo-tools of the registry's own confirmations. They are not stamp
// tools: no persona can call them; only virgo-tui queues them.
const (
	ToolActivate   = "virgo.persona.activate"
	ActionActivate = "registry.activate"
	ToolRetire     = "virgo.persona.retire"
	ActionRetire   = "registry.retire"
)

// Effect is what a decided activation or retirement does to its
// generation in the registry.
type Effect string

// The lifecycle effects of a decision.
const (
	// EffectNone: an operation, a pending confirmation, or a denied or
	// expired retirement changes no generation.
	EffectNone Effect = ""
	// EffectActivate: an approved activation activates the generation.
	EffectActivate Effect = "activate"
	// EffectRefuse: a denied or expired activation refuses it.
	EffectRefuse Effect = "refuse"
	// EffectRetire: an approved retirement retires it.
	EffectRetire Effect = "retire"
)

// LifecycleEffect is the effect of decided confirmation c on its
// generation, with the reason the registry records (for a refusal or a
// retirement). The decision and its effect commit in one transaction.
func LifecycleEffect(c *Confirmation) (Effect, string) {
	if c.Decision == nil {
		return EffectNone, ""
	}
	decided := string(c.Decision.Decision) + " by " + c.Decision.Decider.String()
	switch {
	case c.Kind == KindActivation && c.State == StateApproved:
		return EffectActivate, ""
	case c.Kind == KindActivation:
		if c.Decision.Reason != "" {
			decided = c.Decision.Reason
		}
		return EffectRefuse, decided
	case c.Kind == KindRetirement && c.State == StateApproved:
		return EffectRetire, retireReason(c, decided)
	}
	return EffectNone, ""
}

// retireReason is what the registry records for an approved retirement:
// the reason its requester gave (a retirement is never queued without one),
// with the decider's note when there is one.
func retireReason(c *Confirmation, decided string) string {
	if c.Decision.Reason != "" {
		return c.RequestReason + " (" + decided + ": " + c.Decision.Reason + ")"
	}
	return c.RequestReason
}
