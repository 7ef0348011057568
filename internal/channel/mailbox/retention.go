package mailbox

import (
	"context"
	"fmt"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/channel"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
)

// PlanAgeOut plans deleting the items acked before cutoff, with a file
// item's bytes, at most maxOps writes of them. Each delete is guarded on
// the item's revision, so one changed meanwhile (a reaction) is planned
// again. An item not acked is never aged out: it is what the unread count
// and the unread_bytes quota hold. n is how many it deletes.
func (b *Book) PlanAgeOut(ctx context.Context, cutoff time.Time, maxOps int) (plan store.Plan, n int, err error) {
	kvs, err := b.st.List(ctx, PrefixItem)
	if err != nil {
		return store.Plan{}, 0, fmt.Errorf("age out acked channel items: %w", err)
	}
	for _, kv := range kvs {
		if len(plan.Ops)+2 > maxOps {
			break
		}
		var it channel.Item
		// An unreadable item is left for store check to report.
		if strictjson.DecodeOpen(kv.Value, &it) != nil || it.AckedAt == nil || !it.AckedAt.Before(cutoff) {
			continue
		}
		plan.Conds = append(plan.Conds, store.Cond{Key: kv.Key, ModRev: kv.ModRev})
		plan.Ops = append(plan.Ops, store.Op{Key: kv.Key, Delete: true})
		if it.Kind == channel.KindFile {
			plan.Ops = append(plan.Ops, store.Op{Key: keyFile(it.Human, it.ID), Delete: true})
		}
		n++
	}
	return plan, n, nil
}
