package queue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
)

// PlanAgeOut plans deleting the confirmations decided before cutoff, at
// most maxOps writes of them: each one's record, the record of carrying
// it out, and the fingerprint and correlation entries that name it. Each
// delete is guarded on the revision read, so one changed meanwhile (none
// should be: a decision is terminal) is planned again. n is how many it
// deletes; 0 when none is left.
//
// What is kept: the audit log's entry of each decision (written with it:
// requester, authority and its binding, the normalized operation, stamp
// hash, decision, decider, correlation id, reason) and the prompt
// registry's learned choices. A retry under an aged-out correlation id
// finds no confirmation and is asked again: it is never carried out a
// second time without a new decision.
func (q *Queue) PlanAgeOut(ctx context.Context, cutoff time.Time, maxOps int) (plan store.Plan, n int, err error) {
	kvs, err := q.st.List(ctx, PrefixConfirmation)
	if err != nil {
		return store.Plan{}, 0, fmt.Errorf("age out decided confirmations: %w", err)
	}
	// A confirmation several requesters joined has a correlation entry
	// for each; all go in the transaction that deletes it, so no entry is
	// left naming nothing.
	corrs, err := q.st.List(ctx, prefixCorrelation)
	if err != nil {
		return store.Plan{}, 0, fmt.Errorf("age out decided confirmations: %w", err)
	}
	naming := map[string][]store.KV{}
	for _, kv := range corrs {
		naming[string(kv.Value)] = append(naming[string(kv.Value)], kv)
	}
	for _, kv := range kvs {
		var c confirm.Confirmation
		// An unreadable record is left for store check to report.
		if strictjson.DecodeOpen(kv.Value, &c) != nil || c.Decision == nil || !c.Decision.Time.Before(cutoff) {
			continue
		}
		conds := []store.Cond{{Key: kv.Key, ModRev: kv.ModRev}}
		ops := []store.Op{{Key: kv.Key, Delete: true}, {Key: keyCarried(c.ID), Delete: true}}
		fp, err := q.st.Get(ctx, keyFingerprint(c.Fingerprint))
		switch {
		case err == nil && string(fp.Value) == c.ID:
			conds = append(conds, store.Cond{Key: fp.Key, ModRev: fp.ModRev})
			ops = append(ops, store.Op{Key: fp.Key, Delete: true})
		case err != nil && !errors.Is(err, store.ErrNotFound):
			return store.Plan{}, 0, fmt.Errorf("age out confirmation %s: %w", c.ID, err)
		}
		for _, corr := range naming[c.ID] {
			conds = append(conds, store.Cond{Key: corr.Key, ModRev: corr.ModRev})
			ops = append(ops, store.Op{Key: corr.Key, Delete: true})
		}
		if len(plan.Ops)+len(ops) > maxOps || len(plan.Conds)+len(conds) > maxOps {
			if n == 0 {
				continue // too many for one transaction even alone: left as it is
			}
			break
		}
		plan.Conds, plan.Ops = append(plan.Conds, conds...), append(plan.Ops, ops...)
		n++
	}
	return plan, n, nil
}
