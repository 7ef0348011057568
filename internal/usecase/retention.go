package usecase

import (
	"context"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/channel"
	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// ageOutOps bounds the writes of one retention transaction, within the
// store's per-transaction limits.
const ageOutOps = store.MaxTxnOps

// Retention is how long what is done is kept; a zero field takes its
// default.
type Retention struct {
	// Acked is how long an acked human-channel item is kept.
	Acked time.Duration
	// Decided is how long a decided confirmation is kept.
	Decided time.Duration
}

func (r Retention) withDefaults() Retention {
	if r.Acked <= 0 {
		r.Acked = channel.DefaultAckedRetention
	}
	if r.Decided <= 0 {
		r.Decided = confirm.DefaultDecidedRetention
	}
	return r
}

// SweepRetention deletes what is past its retention, in transactions of
// at most ageOutOps writes, and reports how many records it deleted:
// human-channel items acked more than Retention.Acked ago (and their
// files), and confirmations decided more than Retention.Decided ago (see
// queue.Queue.PlanAgeOut for what is kept of them). It is one of the
// run-once jobs; the space is returned to the file system by
// `virgo-tui store compact`.
func (u *Cases) SweepRetention(ctx context.Context) (int, error) {
	now := u.now()
	steps := []struct {
		what string
		plan func() (store.Plan, int, error)
	}{
		{"age out acked channel items", func() (store.Plan, int, error) {
			return u.human.PlanAgeOut(ctx, now.Add(-u.retention.Acked), ageOutOps)
		}},
		{"age out decided confirmations", func() (store.Plan, int, error) {
			return u.queue.PlanAgeOut(ctx, now.Add(-u.retention.Decided), ageOutOps)
		}},
	}
	total := 0
	for _, s := range steps {
		for {
			n := 0
			err := u.commit(ctx, UseAgeOut, s.what, func() (store.Plan, error) {
				p, k, err := s.plan()
				n = k
				return p, err
			})
			if err != nil {
				return total, err
			}
			if n == 0 {
				break
			}
			total += n
		}
	}
	return total, nil
}
