package queue

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// Confirmation ids sort in creation order, so that new records append to
// the store's B+tree instead of dirtying random leaves; ids made
// in one millisecond stay distinct, and every id is a valid id of the API.
func TestConfirmationIDsSortInCreationOrder(t *testing.T) {
	q, clk := queueFor(t, Options{})
	p := policyFor(t, "work/core/lead", confirm.Options{})
	var ids []string
	for i := range 40 {
		if i%4 == 0 {
			clk.Advance(time.Millisecond) // four requests share each millisecond
		}
		o := op(t, p, "publish_deployment_v1", fmt.Sprintf("external:https://example.org/r/%d", i), stamp.ShapeDeploy)
		ids = append(ids, mustRequest(t, q, confirm.PersonaPrincipal(p.Address()), p, o, fmt.Sprintf("corr-%d", i)).Confirmation.ID)
	}
	format := regexp.MustCompile(`^c-[0-9a-f]{17}$`)
	for i, id := range ids {
		if !format.MatchString(id) {
			t.Fatalf("id %q: want c- and 17 hex digits", id)
		}
		if _, err := confirm.NormalizeID(id); err != nil {
			t.Fatalf("id %q is not a valid id: %v", id, err)
		}
		if i >= 4 && ids[i-i%4-1] >= id {
			t.Fatalf("id %q of a later millisecond sorts before %q", id, ids[i-i%4-1])
		}
		if slices.Contains(ids[:i], id) {
			t.Fatalf("id %q made twice", id)
		}
	}
	// The store lists them in the order they were made, millisecond by
	// millisecond.
	kvs, err := q.st.List(context.Background(), PrefixConfirmation)
	if err != nil {
		t.Fatal(err)
	}
	if len(kvs) != len(ids) {
		t.Fatalf("%d records, want %d", len(kvs), len(ids))
	}
	for i, kv := range kvs {
		if got := strings.TrimPrefix(kv.Key, PrefixConfirmation); got[:13] != ids[i][:13] {
			t.Fatalf("record %d is %s, want one of the millisecond of %s", i, got, ids[i])
		}
	}
}
