package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
)

// undecidedEntry is the value of a confirmation's entry in the undecided
// index: what the readers that pick among the undecided confirmations
// select by, so that each loads only the ones it picks. Re-routing a seat
// once it is filled wants its unroutable ones, a retirement its
// generation's; reading every undecided confirmation for each made
// approving n registrations cost n² decodes.
type undecidedEntry struct {
	ID         string    `json:"id"`
	PersonaID  string    `json:"persona_id,omitempty"`
	Authority  string    `json:"authority"`
	Unroutable bool      `json:"unroutable,omitempty"`
	ExpiresAt  time.Time `json:"expires_at"`
}

// undecidedOp writes c's entry in the undecided index.
func undecidedOp(c *confirm.Confirmation) (store.Op, error) {
	b, err := json.Marshal(undecidedEntry{ID: c.ID, PersonaID: c.PersonaID, Authority: c.Authority.String(),
		Unroutable: c.Unroutable, ExpiresAt: c.ExpiresAt})
	if err != nil {
		return store.Op{}, err
	}
	return store.Put(keyUndecided(c.ID), b), nil
}

// undecidedEntries reads the undecided index.
func (q *Queue) undecidedEntries(ctx context.Context) ([]undecidedEntry, error) {
	kvs, err := q.st.List(ctx, prefixUndecided)
	if err != nil {
		return nil, fmt.Errorf("list undecided confirmations: %w", err)
	}
	out := make([]undecidedEntry, 0, len(kvs))
	for _, kv := range kvs {
		var e undecidedEntry
		if err := strictjson.DecodeOpen(kv.Value, &e); err != nil {
			return nil, fmt.Errorf("undecided entry %s: %w", kv.Key, err)
		}
		out = append(out, e)
	}
	return out, nil
}
