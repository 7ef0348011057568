package hub

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// A persona generation's token is issued once, as the file
// <GenerationDir>/token (0600) that its runtime reads, and the hub records
// the token's SHA-256 in the store under TokenHashPrefix+<generation id> in
// the same step. The store is the source of truth for which token a
// generation holds: a hub start loads every hash with one List instead of
// reading one file per generation (10,000 files cost about half a second),
// and a token file deleted or edited later changes nothing — retirement is
// what revokes. Only active generations' hashes are accepted; a retired
// generation's hash is kept (never deleted) so that its token is answered
// `retired`, across restarts too. A generation without a recorded hash (a
// home from before hashes were recorded) has its file read, or created,
// once, and its hash recorded then.
//
// Several hubs on several hosts serve one installation, and a runtime runs
// on the host that registered its generation: only the hub whose home holds
// the generation's directory issues its token (creates the file and records
// the hash, on condition that none is recorded). Every other hub accepts the
// hash it finds recorded, or the one that arrives later on its store watch
// (followTokenHash), so a runtime's token works on every hub.

// TokenHashPrefix is the store prefix of the persona token hashes (hex
// SHA-256, never the token). The hub keeps it off the change stream.
const TokenHashPrefix = "token/"

// loadTokenHashes reads every recorded persona token hash, by generation id.
// An unreadable value counts as missing: that generation's file is read again.
func loadTokenHashes(ctx context.Context, st store.Store) (map[string]tokenHash, error) {
	kvs, err := st.List(ctx, TokenHashPrefix)
	if err != nil {
		return nil, fmt.Errorf("hub: load token hashes: %w", err)
	}
	out := make(map[string]tokenHash, len(kvs))
	for _, kv := range kvs {
		if h, ok := parseTokenHash(kv.Value); ok {
			out[strings.TrimPrefix(kv.Key, TokenHashPrefix)] = h
		}
	}
	return out, nil
}

// tokenHashes is the outcome of loadTokenHashes.
type tokenHashes struct {
	known map[string]tokenHash
	err   error
}

func parseTokenHash(v []byte) (h tokenHash, ok bool) {
	if hex.EncodedLen(len(h)) != len(v) {
		return h, false
	}
	_, err := hex.Decode(h[:], v)
	return h, err == nil
}

// tokenHashOp records generation id's token hash.
func tokenHashOp(id string, h tokenHash) store.Op {
	return store.Put(TokenHashPrefix+id, []byte(hex.EncodeToString(h[:])))
}

// issueToken reads a generation's token file, creating it if missing,
// points its seat file at it (hubapi.PointSeat: how its runtime finds the
// token without an operator), and returns its hash.
func (h *Hub) issueToken(p registry.Persona) (tokenHash, error) {
	tok, err := hubapi.ReadOrCreateToken(filepath.Join(h.cfg.Home.GenerationDir(p.ID), hubapi.TokenFile))
	if err != nil {
		return tokenHash{}, fmt.Errorf("token of %s: %w", p.Address, err)
	}
	if err := hubapi.PointSeat(h.cfg.Home.Dir, seatOf(p)); err != nil {
		return tokenHash{}, err
	}
	return hashToken(tok), nil
}

// seatOf is the seat file's record of generation p.
func seatOf(p registry.Persona) hubapi.Seat {
	return hubapi.Seat{ID: p.ID, Name: p.Name, Address: p.Address}
}

// startTokens accepts the tokens of the active generations in ps at hub
// start: their recorded hashes (known, from loadTokenHashes), and for those
// without one the token file, whose hashes are then recorded in one
// transaction. A retired generation's recorded hash is kept as retired, so
// that its token is answered `retired` across restarts.
func (h *Hub) startTokens(ctx context.Context, ps []registry.Persona, known map[string]tokenHash) error {
	var record []store.Op
	for _, p := range ps {
		if th, ok := known[p.ID]; ok && p.State == registry.StateRetired {
			h.tokens.retire(p.ID, p.Address, th)
		}
		if p.State != registry.StateActive {
			continue
		}
		th, ok := known[p.ID]
		if !ok && !h.registeredHere(p.ID) {
			continue // its host's hub issues it; the hash arrives by the watch
		}
		if !ok {
			var err error
			if th, err = h.issueToken(p); err != nil {
				return fmt.Errorf("hub: %w", err)
			}
			record = append(record, tokenHashOp(p.ID, th))
		}
		h.tokens.accept(p.ID, p.Address, th)
	}
	if len(record) > 0 {
		if _, err := store.WriteAll(ctx, h.st, record); err != nil {
			return fmt.Errorf("hub: record %d token hashes: %w", len(record), err)
		}
		h.log.Info("recorded persona token hashes", "count", len(record))
	}
	return nil
}

// ensureToken makes sure an active generation holds a token: the one
// already accepted, else its recorded hash, else — on the host that
// registered it — one issued now (file first, then its hash, so that a
// crash in between leaves a file that the next start records). A hub on
// another host issues nothing: the registering host's hub records the hash,
// and followTokenHash accepts it when it arrives.
func (h *Hub) ensureToken(ctx context.Context, p registry.Persona) error {
	if h.tokens.holds(p.ID) {
		return nil
	}
	kv, err := h.st.Get(ctx, TokenHashPrefix+p.ID)
	switch {
	case err == nil:
		if th, ok := parseTokenHash(kv.Value); ok {
			h.tokens.accept(p.ID, p.Address, th)
			return nil
		}
	case !errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("read the token hash of %s: %w", p.Address, err)
	}
	if !h.registeredHere(p.ID) {
		return nil
	}
	th, err := h.issueToken(p)
	if err != nil {
		return err
	}
	// Recorded only where none is (or over the unreadable one read), so
	// no two hubs' tokens replace each other.
	cond := store.Cond{Key: TokenHashPrefix + p.ID, ModRev: kv.ModRev}
	if _, err := h.st.Txn(ctx, []store.Cond{cond}, []store.Op{tokenHashOp(p.ID, th)}); errors.Is(err, store.ErrConflict) {
		h.log.Warn("another hub recorded this generation's token first; its token file here is not the one accepted", "persona", p.Address)
		return h.ensureToken(ctx, p)
	} else if err != nil {
		return fmt.Errorf("record the token hash of %s: %w", p.Address, err)
	}
	h.tokens.accept(p.ID, p.Address, th)
	return nil
}

// registeredHere reports whether this hub's home holds generation id's
// private directory: it was registered on this host, where its runtime
// reads its token file.
func (h *Hub) registeredHere(id string) bool {
	fi, err := os.Stat(h.cfg.Home.GenerationDir(id))
	return err == nil && fi.IsDir()
}

// followTokenHash accepts a token hash recorded by another hub (or this
// one) as it arrives on the store watch, for a generation that is active
// and holds no token yet: a hub on another host than the registering one
// learns its runtime's token this way.
func (h *Hub) followTokenHash(ev store.Event) {
	th, ok := parseTokenHash(ev.Value)
	if ev.Delete || !ok {
		return
	}
	id := strings.TrimPrefix(ev.Key, TokenHashPrefix)
	if h.tokens.holds(id) {
		return
	}
	p, err := h.reg.Get(context.Background(), id)
	if err != nil {
		h.log.Error("the persona of a recorded token hash cannot be read; its token is accepted when the persona next changes", "persona", id, "err", err)
		return
	}
	// A generation refused by its stamp check was revoked and holds no
	// token: its standing is checked again before one is accepted.
	if p.State == registry.StateActive && h.checkStanding(p) {
		h.tokens.accept(p.ID, p.Address, th)
	}
}
