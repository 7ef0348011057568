package stamp

import (
	"sync"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// TestConcurrentBuildAndRead: the hub builds and reads stamps from many
// goroutines; the compiled schema and the table are shared read-only.
// Meaningful under -race.
func TestConcurrentBuildAndRead(t *testing.T) {
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		p := registry.Profiles[i%len(registry.Profiles)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 10; j++ {
				s, err := Build(inputFor(seats[p]))
				if err != nil {
					t.Error(err)
					return
				}
				b, _ := Marshal(s)
				if _, err := Read(b); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}
