package switchboard

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/coord"
	"github.com/virgo-hub/virgo-tui/internal/quota"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
)

// A message's id names one message of the installation: the first
// message of two inboxes differ (both were m-1, so reply_to was
// ambiguous), the id reads back to its seat, and an inbox refuses to ack
// another inbox's message by its id.
func TestMessageIDsAreUniqueInTheInstallation(t *testing.T) {
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "virgo.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	b := New(st, nil, quota.Limits{})
	ctx := context.Background()
	send := func(to string) coord.Message {
		m, plan, err := b.PlanSend(ctx, coord.Message{To: to, From: coord.Sender{Address: "work/core/lead"}, Body: "hello"})
		if err == nil {
			_, err = plan.Commit(ctx, st)
		}
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	a, d := send("work/core/deputy"), send("work/secretary")
	if a.ID == d.ID {
		t.Fatalf("the first messages of two inboxes are both %s", a.ID)
	}
	if seat, seq, err := coord.ParseID(a.ID); err != nil || seat != "work/core/deputy" || seq != 1 {
		t.Fatalf("ParseID(%s) = %s, %d, %v", a.ID, seat, seq, err)
	}
	if _, _, err := b.PlanAck(ctx, "work/secretary", a.ID); !errors.Is(err, coord.ErrNoMessage) {
		t.Fatalf("work/secretary acks %s: %v, want ErrNoMessage", a.ID, err)
	}
	if _, _, err := b.PlanAck(ctx, "work/core/deputy", a.ID); err != nil {
		t.Fatalf("the deputy acks its own %s: %v", a.ID, err)
	}
}
