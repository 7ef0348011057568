package usecase

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

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

// StampPrefix is the store prefix of stamp bytes, by generation id, in
// their stored form (stampform.go). No
// change event is made of it (the persona record carries the hash).
const StampPrefix = "stamp/"

// stampsInStore marks a store whose every stamp hash has its bytes stored:
// the copy of older homes' stamp files (CopyStampFiles) is done.
const stampsInStore = "stamp-bytes-stored"

// ErrStampNotStored: a generation's stamp hash is recorded but its bytes are
// not in the store — an installation from before stamps were stored whose
// registering host's hub has not started since.
var ErrStampNotStored = errors.New("capability stamp bytes not in the store")

// stampPage is how many stored stamps one read of CopyStampFiles' walk
// returns: at most MaxBytes each, a page stays within a few MiB.
const stampPage = 64

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
		return stamp.Stamp{}, fmt.Errorf("%s (%s): %w; start the hub once on the home that registered it, which copies its stamp file into the store",
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

// localStampPath is the local copy of generation id's stamp on this host.
func (u *Cases) localStampPath(id string) string {
	return filepath.Join(u.home.GenerationDir(id), stamp.FileName)
}

// CopyStampFiles copies into the store, once, the stamp files of the
// generations whose hash is recorded but whose bytes are not stored (a home
// from before stamps were stored), each verified against its hash first, in
// transactions within the store's limits. ps are every persona record. A
// generation whose file this home does not have (it was registered on
// another host) is left for that host's hub, and the copy is not marked
// done until none is left. It returns how many it copied.
func (u *Cases) CopyStampFiles(ctx context.Context, ps []registry.Persona) (int, error) {
	if _, err := u.st.Get(ctx, stampsInStore); err == nil {
		return 0, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return 0, fmt.Errorf("copy stamp files into the store: %w", err)
	}
	// Which stamps are stored is one walk of their prefix (a page per
	// read), not a read per persona.
	stored := make(map[string]bool)
	if err := store.Walk(ctx, u.st, StampPrefix, stampPage, func(kvs []store.KV) error {
		for _, kv := range kvs {
			stored[kv.Key] = true
		}
		return nil
	}); err != nil {
		return 0, fmt.Errorf("copy stamp files into the store: %w", err)
	}
	var batch store.Plan
	size, inBatch, copied, elsewhere, refused, conflicted := 0, 0, 0, 0, 0, 0
	flush := func() error {
		if batch.Empty() {
			return nil
		}
		switch _, err := batch.Commit(ctx, u.st); {
		case errors.Is(err, store.ErrConflict):
			// Another hub copying the same stamps: theirs hold, but this
			// batch may have held others, so the next start looks again.
			conflicted += inBatch
		case err != nil:
			return fmt.Errorf("copy stamp files into the store: %w", err)
		default:
			copied += inBatch
		}
		batch, size, inBatch = store.Plan{}, 0, 0
		return nil
	}
	for _, p := range ps {
		if p.StampHash == "" {
			continue
		}
		if stored[stampStoreKey(p.ID)] {
			continue
		}
		path := u.localStampPath(p.ID)
		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			elsewhere++
			continue
		}
		if err == nil && len(b) > stamp.MaxBytes {
			err = fmt.Errorf("%s: %w: %d bytes, the limit is %d", path, stamp.ErrStampTooLarge, len(b), stamp.MaxBytes)
		}
		if err == nil {
			_, err = stamp.Verify(path, b, p.StampHash)
		}
		if err != nil {
			// Not copied: the stamp check refuses this generation, as it
			// refused the file before.
			u.log.Error("a stamp file is not copied into the store", "persona", p.Address, "err", err)
			refused++
			continue
		}
		if len(batch.Ops) == store.MaxTxnOps || size+len(b) > store.MaxTxnBytes/2 {
			if err := flush(); err != nil {
				return copied, err
			}
		}
		batch.Join(storeStampPlan(p.ID, b))
		size += len(b)
		inBatch++
	}
	if err := flush(); err != nil {
		return copied, err
	}
	if copied > 0 {
		u.log.Info("copied stamp files into the store", "count", copied)
	}
	if elsewhere > 0 {
		u.log.Warn("stamps not in the store and not in this home; the hub of the home that registered them copies them when it starts", "count", elsewhere)
	}
	if elsewhere+refused+conflicted > 0 {
		return copied, nil // the next start tries again
	}
	if _, err := u.st.Txn(ctx, nil, []store.Op{store.Put(stampsInStore, []byte("1"))}); err != nil {
		return copied, fmt.Errorf("copy stamp files into the store: %w", err)
	}
	return copied, nil
}
