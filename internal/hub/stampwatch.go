package hub

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// stampWatch notices, on every request a persona runtime makes (connecting,
// beating, asking), that its generation's capability stamp file no longer
// matches its recorded hash (issue 10 item 11): the hub refuses the runtime
// at once, not at its next start. A file is hashed again only when its
// stat changed since it last matched, so the steady cost is one stat.
//
// The stamp every hub serves and decides by is the store's copy, written
// once and verified against the hash on read (usecase.LoadStamp); it cannot
// change. What this watches is the local copy, on the host that registered
// the generation, which the runtime there may read: a copy that no longer
// matches is authority material something on this host changed, so the
// generation is refused as before. A hub whose host has no copy (the
// generation was registered through another host's hub) has no file to
// watch; a copy removed is no longer a copy that differs.
type stampWatch struct {
	mu   sync.Mutex
	seen map[string]stampSeen // generation id -> the file as it last matched
}

// stampRecheck is how often a long-lived beat stream's stamp is checked
// again while it runs.
const stampRecheck = time.Second

// stampSeen is a stamp file as it was when its hash last matched.
type stampSeen struct {
	path, hash string
	size       int64
	mod, ctime time.Time
}

func (s stampSeen) same(fi os.FileInfo) bool {
	return fi.Size() == s.size && fi.ModTime().Equal(s.mod) && changeTime(fi).Equal(s.ctime)
}

// checkStamp verifies the stamp of the generation behind a persona token.
// A mismatch revokes the token and shows the problem in presence, as the
// start's check does, and answers stamp_hash_mismatch.
func (h *Hub) checkStamp(ctx context.Context, personaID string) error {
	h.stamps.mu.Lock()
	s, ok := h.stamps.seen[personaID]
	h.stamps.mu.Unlock()
	if !ok {
		p, err := h.reg.Get(ctx, personaID)
		if err != nil {
			return err
		}
		if p.StampHash == "" {
			return nil // registered without a stamp: nothing to hold it to
		}
		s = stampSeen{path: filepath.Join(h.cfg.Home.GenerationDir(p.ID), stamp.FileName), hash: keep(p.StampHash)}
	}
	fi, err := os.Stat(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		// No local copy on this host: the stored one is the stamp. It is
		// remembered, so the next check is one stat, not a record read.
		if !ok {
			h.stamps.mu.Lock()
			h.stamps.seen[personaID] = s
			h.stamps.mu.Unlock()
		}
		return nil
	}
	if err == nil && ok && s.same(fi) {
		return nil
	}
	if err == nil {
		_, err = stamp.Load(s.path, s.hash)
	}
	if err != nil {
		h.stamps.forget(personaID)
		h.tokens.Revoke(personaID)
		h.presence.Invalidate(personaID, "capability stamp refused: "+err.Error())
		h.log.Error("persona refused: its capability stamp changed under the running hub", "persona", personaID, "err", err)
		return fmt.Errorf("your capability stamp no longer matches the hash recorded at registration; this generation is refused until an operator looks: %w", err)
	}
	s.size, s.mod, s.ctime = fi.Size(), fi.ModTime(), changeTime(fi)
	h.stamps.mu.Lock()
	h.stamps.seen[personaID] = s
	h.stamps.mu.Unlock()
	return nil
}

// forget drops what is remembered of a retired generation's stamp file.
func (w *stampWatch) forget(personaID string) {
	w.mu.Lock()
	delete(w.seen, personaID)
	w.mu.Unlock()
}
