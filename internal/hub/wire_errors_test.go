package hub

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// A store that cannot answer (an etcd cluster without quorum) is its own
// answer, 503 store_unavailable, with the store's sentence — not internal.
func TestStoreUnavailableHasItsCode(t *testing.T) {
	err := fmt.Errorf("commit: %w: etcd at e1:2379 did not answer within 5s", store.ErrUnavailable)
	ae := wireError(err)
	if ae.Status != http.StatusServiceUnavailable || ae.Code != "store_unavailable" || !strings.Contains(ae.Msg, "e1:2379") {
		t.Fatalf("wireError(%v) = %+v, want 503 store_unavailable naming the endpoint", err, ae)
	}
}

// Each error of the use cases and the store that the API names is
// answered as its wire twin — its code and status, the error's own
// sentence — and a client's errors.Is holds for the twin alone. The twin
// says the same sentence as the error it answers.
func TestServerErrorsAreAnsweredAsTheirWireTwins(t *testing.T) {
	for _, tw := range wireTwins {
		if tw.server.Error() != tw.wire.Error() {
			t.Errorf("the twin of %q says %q", tw.server, tw.wire)
		}
		code := hubapi.CodeOf(tw.wire)
		if code == "" {
			t.Errorf("%q: its twin %q is not in the API's error table", tw.server, tw.wire)
			continue
		}
		ae := wireError(fmt.Errorf("POST /v1/something: %w", tw.server))
		want := hubapi.Errorf(tw.wire, "x")
		if ae.Code != code || ae.Status != want.Status || ae.Msg != "POST /v1/something: "+tw.server.Error() {
			t.Errorf("%q answered %+v, want %d %s", tw.server, ae, want.Status, code)
		}
		for _, other := range wireTwins {
			if is := errors.Is(ae, other.wire); is != (other.wire == tw.wire) {
				t.Errorf("%q answered as %s: errors.Is(_, %q) = %v", tw.server, ae.Code, other.wire, is)
			}
		}
	}
}
