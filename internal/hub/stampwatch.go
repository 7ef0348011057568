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

// stampSeen is a stamp file as it was when its hash last matched: the
// hash it is held to and its stat, in 40 bytes (one is kept for every
// active generation; its path follows from the generation, stampPath).
type stampSeen struct {
	hash       string
	size       int64
	mod, ctime int64 // Unix nanoseconds
}

// seenAs is what s remembers of a file whose stat is fi.
func (s stampSeen) seenAs(fi os.FileInfo) stampSeen {
	s.size, s.mod, s.ctime = fi.Size(), fi.ModTime().UnixNano(), changeTime(fi)
	return s
}

func (s stampSeen) same(fi os.FileInfo) bool { return s.seenAs(fi) == s }

// checkStamp holds the local copy of the stamp of a persona's generation
// to its recorded hash: on every request of its runtime and on every read
// of its stamp. A mismatch refuses the generation (refuseStamp) and answers
// stamp_hash_mismatch.
func (h *Hub) checkStamp(ctx context.Context, personaID string) error {
	h.stamps.mu.Lock()
	s, ok := h.stamps.seen[personaID]
	h.stamps.mu.Unlock()
	if !ok {
		p, err := h.reg.Get(ctx, personaID)
		if err != nil {
			return err
		}
		s = stampSeen{hash: keep(p.StampHash)}
	}
	if err := h.stamps.check(personaID, h.stampPath(personaID), s, ok); err != nil {
		h.refuseStamp(personaID, err)
		return fmt.Errorf("the capability stamp of this generation no longer matches the hash recorded at registration; it is refused until an operator looks: %w", err)
	}
	return nil
}

// stampPath is where this host keeps the local copy of a generation's stamp.
func (h *Hub) stampPath(personaID string) string {
	return filepath.Join(h.cfg.Home.GenerationDir(personaID), stamp.FileName)
}

// refuseStamp refuses a generation whose stamp failed a check: its token
// is revoked and presence shows the problem until an operator looks.
func (h *Hub) refuseStamp(personaID string, err error) {
	h.stamps.forget(personaID)
	h.tokens.Revoke(personaID)
	h.presence.Invalidate(personaID, "capability stamp refused: "+err.Error())
	h.log.Error("persona refused: its capability stamp failed its check", "persona", personaID, "err", err)
}

// check is the one check of a local stamp copy, by hash alone (the stamp
// every hub decides by is the store's, read in full): s is remembered once
// it matched, so while the file's stat is unchanged (known) the check is one
// stat. A generation registered without a stamp, or a host without a copy
// (registered through another host's hub), has nothing to check, which is
// remembered too.
func (w *stampWatch) check(personaID, path string, s stampSeen, known bool) error {
	if s.hash == "" {
		w.remember(personaID, s, known)
		return nil
	}
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		w.remember(personaID, s, known)
		return nil
	}
	if err == nil && known && s.same(fi) {
		return nil
	}
	var b []byte
	if err == nil {
		b, err = os.ReadFile(path)
	}
	if err == nil {
		err = stamp.VerifyHash(path, b, s.hash)
	}
	if err != nil {
		return err
	}
	// The stat is the one taken before the read: a change in between
	// shows as a changed stat at the next check, which hashes again.
	w.remember(personaID, s.seenAs(fi), false)
	return nil
}

// remember keeps s as what the next check of personaID compares with,
// unless it is already what is kept (known).
func (w *stampWatch) remember(personaID string, s stampSeen, known bool) {
	if known {
		return
	}
	w.mu.Lock()
	w.seen[keep(personaID)] = s
	w.mu.Unlock()
}

// forget drops what is remembered of a retired generation's stamp file.
func (w *stampWatch) forget(personaID string) {
	w.mu.Lock()
	delete(w.seen, personaID)
	w.mu.Unlock()
}
