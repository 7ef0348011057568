package usecase

import (
	"context"
	"errors"
	"fmt"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// A generation's capability stamp lives in the store: its bytes under
// StampPrefix + generation id, written in the registration's one
// transaction with the hash that the persona record keeps, never rewritten
// (the write is conditioned on the key being absent). Every hub of an
// installation — on any host — reads a stamp from there and verifies it
// against the recorded hash. The file CAPABILITY-STAMP.json in the
// generation's directory is the local copy on the host that registered it,
// for the runtime there; a copy that no longer matches the recorded hash is
// still refused (the hub's stamp watch), because it is authority material
// that something on that host changed.

// StampPrefix is the store prefix of stamp bytes, by generation id, as
// the stamp file holds them. No change event is made of it (the persona
// record carries the hash).
const StampPrefix = "stamp/"

// ErrStampNotStored: a generation's stamp hash is recorded but its bytes are
// not in the store. The registration writes both in one transaction, so
// the store was damaged or edited: restore it from a backup.
var ErrStampNotStored = errors.New("capability stamp bytes not in the store")

// stampStoreKey is the store key of generation id's stamp bytes.
func stampStoreKey(id string) string { return StampPrefix + id }

// storeStampPlan is the guarded write of a new generation's stamp bytes b,
// as they are (the store's value codec compresses them): absent before, so
// a stamp is never replaced.
func storeStampPlan(id string, b []byte) store.Plan {
	return store.Plan{Conds: []store.Cond{{Key: stampStoreKey(id)}}, Ops: []store.Op{store.Put(stampStoreKey(id), b)}}
}

// readStoredStamp reads generation p's stamp bytes from the store and
// verifies them against its recorded hash (and both validators) — or, when
// exactly these bytes under this hash passed that in this process (a stamp
// the cache dropped, read again), decodes them: the same bytes, the same
// verdict, at a tenth of the work.
func (u *Cases) readStoredStamp(ctx context.Context, p registry.Persona) (stamp.Stamp, error) {
	kv, err := u.st.Get(ctx, stampStoreKey(p.ID))
	if errors.Is(err, store.ErrNotFound) {
		return stamp.Stamp{}, fmt.Errorf("%s (%s): %w; the registration stored them with its hash, so the store was damaged or edited: restore it from a backup",
			p.Address, p.Name, ErrStampNotStored)
	}
	if err != nil {
		return stamp.Stamp{}, fmt.Errorf("read the stamp of %s: %w", p.Address, err)
	}
	source := "the stored stamp of " + p.Address
	b := kv.Value
	if len(b) > stamp.MaxBytes {
		return stamp.Stamp{}, fmt.Errorf("load %s: %w: %d bytes, the limit is %d", source, stamp.ErrStampTooLarge, len(b), stamp.MaxBytes)
	}
	d := verifiedDigest(p.StampHash, kv.Value)
	if u.stamps.wasVerified(p.ID, d) {
		return stamp.Decode(source, b)
	}
	st, err := stamp.Verify(source, b, p.StampHash)
	if err != nil {
		return stamp.Stamp{}, err
	}
	u.stamps.rememberVerified(p.ID, d)
	return st, nil
}
