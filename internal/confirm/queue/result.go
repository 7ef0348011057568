package queue

import (
	"encoding/json"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// ResultJSON is r encoded as JSON. When plan writes r's confirmation (a
// request that queued a new one), its record's bytes, the confirmation's
// JSON, are spliced in rather than encoded a second time: the same bytes
// encoding/json would write there.
func ResultJSON(r confirm.Result, plan store.Plan) ([]byte, error) {
	if r.Confirmation == nil {
		return json.Marshal(r)
	}
	key := keyConfirmation(r.Confirmation.ID)
	for _, op := range plan.Ops {
		if op.Key != key || op.Delete {
			continue
		}
		r.Confirmation = nil
		head, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		return store.AppendField(head, "confirmation", op.Value), nil
	}
	return json.Marshal(r)
}
