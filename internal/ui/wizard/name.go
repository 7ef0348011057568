package wizard

import (
	"fmt"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// checkName refuses a typed name the registry would refuse: the name rules
// (registry.NormalizeName's own words) and names already given, in any case,
// because "names are never reused". A name given since the snapshot was read
// is still refused by Submit, and that refusal is shown too.
func (m Model) checkName(name string) error {
	n, err := registry.NormalizeName(name)
	if err != nil {
		return err
	}
	if m.taken[strings.ToLower(n)] {
		return fmt.Errorf("%q: %w", n, registry.ErrNameTaken)
	}
	return nil
}

// takenSet indexes taken names by their lowercase form, the registry's
// uniqueness key, so a keystroke costs one lookup at any installation size.
func takenSet(names []string) map[string]bool {
	out := make(map[string]bool, len(names))
	for _, n := range names {
		out[strings.ToLower(n)] = true
	}
	return out
}
