package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// PlanRestore plans putting back the learned choices of cs that the store
// lacks, at most max of them, each guarded on its key still being absent:
// a choice stored meanwhile — a human's later word on the same key — is
// kept, never overwritten by an older copy. It returns the choices not
// yet planned (for the next transaction) and how many were there already.
func (r *Prompts) PlanRestore(ctx context.Context, cs []confirm.Choice, max int) (plan store.Plan, rest []confirm.Choice, there int, err error) {
	for i, c := range cs {
		if len(plan.Ops) == max {
			return plan, cs[i:], there, nil
		}
		k := choiceKey(c)
		_, err := r.st.Get(ctx, k)
		if err == nil {
			there++
			continue
		}
		if !errors.Is(err, store.ErrNotFound) {
			return store.Plan{}, nil, 0, fmt.Errorf("read learned choice %s: %w", c.ID(), err)
		}
		val, err := json.Marshal(c)
		if err != nil {
			return store.Plan{}, nil, 0, err
		}
		plan.Conds = append(plan.Conds, store.Cond{Key: k})
		plan.Ops = append(plan.Ops, store.Put(k, val))
	}
	return plan, nil, there, nil
}
