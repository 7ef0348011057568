package queue

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
)

// AuditOp is the store write of one entry, for a use case that joins it
// to the transaction of the change it records.
func AuditOp(e confirm.AuditEntry) (store.Op, error) { return auditOp(e) }

// auditOp is the store write of one entry.
func auditOp(e confirm.AuditEntry) (store.Op, error) {
	b, err := json.Marshal(e)
	if err != nil {
		return store.Op{}, err
	}
	return store.Put(auditKey(e.Time, e.ConfirmationID, e.Event), b), nil
}

// Audit returns the audit log in commit order (the store revision that
// wrote each entry; clocks may tie or step back, revisions do not).
func Audit(ctx context.Context, st store.Store) ([]confirm.AuditEntry, error) {
	kvs, err := st.List(ctx, PrefixAudit)
	if err != nil {
		return nil, fmt.Errorf("read audit log: %w", err)
	}
	slices.SortStableFunc(kvs, func(a, b store.KV) int { return cmp.Compare(a.CreateRev, b.CreateRev) })
	out := make([]confirm.AuditEntry, 0, len(kvs))
	for _, kv := range kvs {
		var e confirm.AuditEntry
		if err := strictjson.DecodeOpen(kv.Value, &e); err != nil {
			return nil, fmt.Errorf("audit entry %s: %w", kv.Key, err)
		}
		out = append(out, e)
	}
	return out, nil
}
