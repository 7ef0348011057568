package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// MigrateBatch is how many assignment records one migration transaction
// carries: each takes four writes and two conditions, within the store's
// limit of a transaction (store.MaxTxnOps).
const MigrateBatch = store.MaxTxnOps / 4

// PlanMigrate plans turning the first MigrateBatch assignment records of
// an older installation (confirm.PrefixAssignments: a task id assigned to
// a deputy generation) into tasks assigned to those generations, and
// deleting the old records, guarded on each as read: the deputy keeps
// exactly the scope it had. Each record's task commits with its deletion,
// so a migration cut short between batches leaves every record either
// migrated or not; planning again continues with the rest. A task id
// already taken (the same task assigned to two generations, or the id
// used by another project) gets the id "<task>.<first 8 of the generation
// id>". A store without assignment records plans nothing.
func PlanMigrate(ctx context.Context, st store.Store, now time.Time) (int, store.Plan, error) {
	kvs, _, err := st.Range(ctx, confirm.PrefixAssignments, "", MigrateBatch)
	if err != nil {
		return 0, store.Plan{}, fmt.Errorf("migrate assignments: %w", err)
	}
	var plan store.Plan
	taken := map[string]bool{}
	for _, kv := range kvs {
		var a confirm.Assignment
		if err := json.Unmarshal(kv.Value, &a); err != nil {
			return 0, store.Plan{}, fmt.Errorf("migrate assignment %s: %w: %v", kv.Key, store.ErrCorrupt, err)
		}
		target, err := confirm.ParseTarget("task:" + a.Task)
		if err != nil {
			return 0, store.Plan{}, fmt.Errorf("migrate assignment %s: %w", kv.Key, err)
		}
		t := Task{ID: target.Value, Scope: target.Scope, Project: target.Project,
			Assignee: Party{ID: a.PersonaID, Address: a.Persona, Generation: a.Generation},
			By:       Party{ID: a.AssignedBy.String()}, Title: "task " + target.Value,
			Brief: "migrated from an assignment of " + a.Time.UTC().Format(time.RFC3339), State: StateAssigned,
			Created: a.Time, Updated: now, Migrated: true}
		if a.AssignedBy.IsModel() {
			t.By.Address = a.AssignedBy.Name
		}
		free, err := freeID(ctx, st, t.ID, taken)
		if err != nil {
			return 0, store.Plan{}, err
		}
		if !free {
			t.ID = t.ID + "." + a.PersonaID[:min(8, len(a.PersonaID))]
			if free, err = freeID(ctx, st, t.ID, taken); err != nil || !free {
				return 0, store.Plan{}, errors.Join(err, fmt.Errorf("migrate assignment %s: task id %s is taken: %w", kv.Key, t.ID, store.ErrConflict))
			}
		}
		taken[t.ID] = true
		val, err := json.Marshal(t)
		if err != nil {
			return 0, store.Plan{}, err
		}
		at := a.Time
		plan.Join(store.Plan{
			Conds: []store.Cond{{Key: kv.Key, ModRev: kv.ModRev}, {Key: keyRecord(t.ID)}},
			Ops: []store.Op{{Key: kv.Key, Delete: true}, store.Put(keyRecord(t.ID), val),
				store.Put(indexKey(prefixAssigned, t.Assignee.ID, at, t.ID), []byte(t.ID)),
				store.Put(indexKey(prefixGiven, t.By.ID, at, t.ID), []byte(t.ID))},
		})
	}
	return len(kvs), plan, nil
}

// freeID reports whether no task (stored, or planned in this migration)
// has id.
func freeID(ctx context.Context, st store.Store, id string, taken map[string]bool) (bool, error) {
	if taken[id] {
		return false, nil
	}
	_, err := st.Get(ctx, keyRecord(id))
	if errors.Is(err, store.ErrNotFound) {
		return true, nil
	}
	return false, err
}
