package queue

import (
	"context"
	"errors"
	"fmt"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// An approved confirmation allows its operation once. The record of its
// carrying out is kept beside the confirmation, as long as the
// confirmation: a retry under any correlation id that reaches the approved
// confirmation again (a client's record of its call swept, another call
// that joined it) is answered with what was done, never allowed a second
// time.

// prefixCarried holds, by confirmation id, the outcome of carrying out an
// approved confirmation's operation (as the caller encoded it).
const prefixCarried = "confirm/carried/"

func keyCarried(id string) string { return prefixCarried + id }

// Carried returns the recorded outcome of carrying out confirmation id's
// operation, and whether there is one.
func (q *Queue) Carried(ctx context.Context, id string) ([]byte, bool, error) {
	kv, err := q.st.Get(ctx, keyCarried(id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("confirmation %s: read what was carried out: %w", id, err)
	}
	return kv.Value, true, nil
}

// PlanCarried plans recording that confirmation id's operation was
// carried out, with its outcome (JSON), guarded on no such record: of two
// concurrent retries exactly one commits, and the other, planning again,
// finds the record (Carried).
func PlanCarried(id string, outcome []byte) store.Plan {
	k := keyCarried(id)
	return store.Plan{Conds: []store.Cond{{Key: k}}, Ops: []store.Op{store.Put(k, outcome)}}
}
