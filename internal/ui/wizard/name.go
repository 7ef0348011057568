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
	for _, t := range m.snap.Taken {
		if strings.EqualFold(t, n) {
			return fmt.Errorf("%q: %w", n, registry.ErrNameTaken)
		}
	}
	return nil
}
