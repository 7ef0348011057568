package hub

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/coord"
)

// Sixteen senders at once to one seat all succeed: a send that loses the
// seat's sequence to a concurrent one is planned again inside the hub
// until its request ends, never refused "contention" (one send in five was,
// with a bounded number of attempts). Every message arrives exactly once.
func TestSixteenSendersToOneSeatAllSucceed(t *testing.T) {
	const senders, each = 16, 60
	th := startHub(t, shortHome(t), Config{}, Timeouts{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	lead := th.addPersona(t, "work/core/lead", "Spica")
	deputy := th.addPersona(t, "work/core/deputy", "Zaniah")
	var wg sync.WaitGroup
	errs := make(chan error, senders*each)
	for g := range senders {
		c := th.runtime(t, lead)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if _, err := c.SendMessage(ctx, coord.Draft{To: deputy.Address, Body: fmt.Sprintf("%d/%d", g, i)}); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	refused := 0
	for err := range errs {
		if refused == 0 {
			t.Errorf("first refusal: %v", err)
		}
		refused++
	}
	if refused > 0 {
		t.Fatalf("%d of %d sends refused", refused, senders*each)
	}
	seen := map[string]int{}
	op := th.operator(t, "henry")
	after := ""
	for {
		page, err := op.Messages(ctx, deputy.Address, after, 500)
		mustNil(t, err)
		for _, m := range page.Items {
			seen[m.Body]++
		}
		if page.Next == "" {
			break
		}
		after = page.Next
	}
	for g := range senders {
		for i := range each {
			if n := seen[fmt.Sprintf("%d/%d", g, i)]; n != 1 {
				t.Errorf("message %d/%d delivered %d times", g, i, n)
			}
		}
	}
	if len(seen) != senders*each {
		t.Fatalf("%d distinct messages in the inbox, want %d", len(seen), senders*each)
	}
}
