package confirm

import (
	"fmt"
)

// MayDecide applies the rules of who decides.
func MayDecide(decider Principal, c *Confirmation, remember Remember) error {
	switch {
	case decider.IsZero() || decider.Kind == PrincipalSystem:
		return fmt.Errorf("decide %s: %w", c.ID, ErrNotAuthority)
	case decider == c.Requester:
		return fmt.Errorf("%s deciding %s: %w", decider, c.ID, ErrSelfDecision)
	case decider.IsModel() && decider.Name == c.Operation.Persona:
		return fmt.Errorf("%s deciding its own operation %s: %w", decider, c.ID, ErrSelfDecision)
	case decider.IsModel() && c.Boundary.Info().Global:
		return fmt.Errorf("%s deciding %s at %s: %w", decider, c.ID, c.Boundary, ErrModelDecision)
	case c.Unroutable:
		return fmt.Errorf("decide %s (%s): %w", c.ID, c.AuthorityBinding, ErrUnroutable)
	case decider != c.Authority:
		return fmt.Errorf("%s deciding %s routed to %s: %w", decider, c.ID, c.Authority, ErrNotAuthority)
	case remember != RememberNone:
		_, err := c.RememberRuleIn(remember)
		return err
	}
	return nil
}
