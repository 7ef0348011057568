package hub

import (
	"context"
	"io"
	"net/http"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
)

// checkedStore is what the store endpoints need of the hub's store: the
// bbolt store has it (boltstore.Store.Check and WriteTo).
type checkedStore interface {
	Path() string
	Check(ctx context.Context) ([]error, error)
	WriteTo(w io.Writer) (int64, error)
}

func (h *Hub) checkedStore() (checkedStore, error) {
	cs, ok := h.st.(checkedStore)
	if !ok {
		return nil, hubapi.ErrStoreUnsupported
	}
	return cs, nil
}

// storeCheck runs the store's full check while the hub serves: every
// record, change-log entry and counter against its checksum, and bbolt's
// page check, in one read transaction.
func storeCheck(h *Hub, w http.ResponseWriter, r *http.Request, _ hubapi.Identity) error {
	cs, err := h.checkedStore()
	if err != nil {
		return err
	}
	problems, err := cs.Check(r.Context())
	if err != nil {
		return err
	}
	out := hubapi.StoreCheck{Path: cs.Path(), Problems: []string{}}
	for _, p := range problems {
		out.Problems = append(out.Problems, p.Error())
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// storeBackup streams a consistent copy of the database (one read
// transaction's snapshot) while writers go on. The client writes it to its
// file and checks that copy before it reports success; a copy cut short
// fails that check.
func storeBackup(h *Hub, w http.ResponseWriter, r *http.Request, _ hubapi.Identity) error {
	cs, err := h.checkedStore()
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	if _, err := cs.WriteTo(w); err != nil {
		h.log.Error("store backup cut short", "err", err)
	}
	return nil
}
