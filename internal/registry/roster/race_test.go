package roster

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// Racing registrations: the compare-and-swap admission lets exactly one
// win a seat, and exactly one win a name; the losers get the named error.
func TestConcurrentAdmission(t *testing.T) {
	in := newInstallation(t)
	in.step(func(r *Registry) {
		const n = 8
		race := func(reg func(i int) registry.Registration, lose error) {
			var wg sync.WaitGroup
			errs := make([]error, n)
			for i := range n {
				wg.Go(func() { _, errs[i] = r.Register(context.Background(), reg(i)) })
			}
			wg.Wait()
			won := 0
			for _, err := range errs {
				switch {
				case err == nil:
					won++
				case !errors.Is(err, lose):
					t.Errorf("loser error = %v, want %v", err, lose)
				}
			}
			if won != 1 {
				t.Errorf("%d registrations won, want exactly 1", won)
			}
		}
		race(func(i int) registry.Registration {
			return registry.Registration{Address: "work/core/lead", Name: fmt.Sprintf("Racer %d", i)}
		}, registry.ErrSeatTaken)
		race(func(i int) registry.Registration {
			return registry.Registration{Address: fmt.Sprintf("work/p%d/lead", i), Name: "Heze"}
		}, registry.ErrNameTaken)
	})
}
