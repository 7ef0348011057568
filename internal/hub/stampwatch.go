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

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// stampWatch proves, on every request a persona runtime makes (connecting,
// beating, asking), on every decision for it and on every sweep
// (Config.StampSweep), that its generation's capability stamp file is
// there and matches its recorded hash (spec: "Startup fails if the stamp is
// missing"). A file missing, unreadable or changed makes the generation not
// standing: presence names why, and every request of its runtime and every
// decision for it is refused, until the file is back intact — then it
// stands again. A file is hashed again only when its stat changed since it
// last matched, so the steady cost is one stat.
//
// The stamp every hub serves and decides by is the store's copy, written
// once and verified against the hash on read (usecase.LoadStamp); it cannot
// change. What this watches is the local copy, on the host that registered
// the generation (where its private directory is), which the runtime there
// reads: a copy missing or no longer matching is authority material
// something on this host changed. A hub whose host has no directory of the
// generation (it was registered through another host's hub) has no file to
// watch: that host's hub holds it.
type stampWatch struct {
	mu   sync.Mutex
	seen map[string]stampSeen // generation id -> the file as it last matched
	// faults are the generations whose file failed its check: not
	// standing, their presence showing why, until a check passes again.
	faults map[string]struct{}
	// refused are the generations whose stored stamp failed its check
	// (refuseStamp), with why: they never stand in this hub's life.
	refused map[string]error
	// unchecked are the active generations loaded at start whose stored
	// stamp and composition the start's full check (checkAllStamps, run
	// after the hub serves) has not reached yet: a decision for one checks
	// it first (checkStamp). Nil once that pass is done.
	unchecked map[string]struct{}
}

// awaitCheck records the active generations of ps as not yet checked.
func (w *stampWatch) awaitCheck(ps []registry.Persona) {
	unchecked := make(map[string]struct{}, len(ps))
	for _, p := range ps {
		if p.State == registry.StateActive {
			unchecked[p.ID] = struct{}{}
		}
	}
	w.mu.Lock()
	w.unchecked = unchecked
	w.mu.Unlock()
}

// checked records that personaID's full check is done, after its verdict
// (a refusal included) is in place.
func (w *stampWatch) checked(personaID string) {
	w.mu.Lock()
	delete(w.unchecked, personaID)
	w.mu.Unlock()
}

// allChecked drops what is left of the start's list: the pass is done.
func (w *stampWatch) allChecked() {
	w.mu.Lock()
	w.unchecked = nil
	w.mu.Unlock()
}

// newStampWatch returns an empty watch.
func newStampWatch() stampWatch {
	return stampWatch{seen: make(map[string]stampSeen), faults: make(map[string]struct{}), refused: make(map[string]error)}
}

// DefaultStampSweep is how often a hub checks the stamp files of the
// active generations registered on its host (Config.StampSweep): one stat
// each while a file is unchanged, about 20 ms a sweep at 10,000.
const DefaultStampSweep = 5 * time.Second

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

// checkStamp proves the local copy of the stamp of a persona's generation
// against its recorded hash: on every request of its runtime, every
// decision for it and every read of its stamp. A generation that fails is
// not standing (stampFault) and the answer names why: stamp_missing,
// stamp_unreadable or stamp_hash_mismatch; one that passes after failing
// stands again.
func (h *Hub) checkStamp(ctx context.Context, personaID string) error {
	// Read together: a generation leaves the unchecked list only once its
	// refusal, if any, is recorded, so one not on it shows its refusal.
	h.stamps.mu.Lock()
	_, unchecked := h.stamps.unchecked[personaID]
	s, ok := h.stamps.seen[personaID]
	refused := h.stamps.refused[personaID]
	h.stamps.mu.Unlock()
	if refused != nil {
		return refused
	}
	if unchecked {
		if err := h.checkNow(ctx, personaID); err != nil {
			return err
		}
	}
	if !ok {
		p, err := h.reg.Get(ctx, personaID)
		if err != nil {
			return err
		}
		if p.State != registry.StateActive {
			return nil // nothing stands or runs: its own refusal says so
		}
		s = stampSeen{hash: p.StampHash}
	}
	return h.proveCopy(personaID, s, ok)
}

// checkNow makes the start's full check of one generation ahead of the
// background pass (checkAllStamps), for a decision that cannot wait for it.
func (h *Hub) checkNow(ctx context.Context, personaID string) error {
	p, err := h.reg.Get(ctx, personaID)
	if err != nil {
		return err
	}
	if p.State == registry.StateActive {
		if err = h.cases.CheckStanding(p); err != nil {
			h.refuseStamp(p.ID, err)
		}
	}
	// Refused or not, once: a refusal is kept (refused) and answers every
	// later decision without a second check.
	h.stamps.checked(personaID)
	return err
}

// ProveStamp is checkStamp for the use cases (usecase.StampProver): every
// decision for a generation proves its stamp file first.
func (h *Hub) ProveStamp(ctx context.Context, personaID string) error {
	return h.checkStamp(ctx, personaID)
}

// proveCopy checks the local copy of personaID's stamp against s (known:
// s is what the watch keeps) and brings its standing in line with the
// verdict.
func (h *Hub) proveCopy(personaID string, s stampSeen, known bool) error {
	err := h.stamps.check(personaID, h.stampPath(personaID), h.cfg.Home.GenerationDir(personaID), s, known)
	if err != nil {
		h.stampFault(personaID, s.hash, err)
		return fmt.Errorf("%w; the persona is not standing until its stamp file is back intact", err)
	}
	if h.stamps.recovered(personaID) {
		h.presence.Reinstate(personaID)
		h.log.Info("persona standing again: its capability stamp file is back intact", "persona", personaID)
	}
	return nil
}

// stampPath is where this host keeps the local copy of a generation's stamp.
func (h *Hub) stampPath(personaID string) string {
	return filepath.Join(h.cfg.Home.GenerationDir(personaID), stamp.FileName)
}

// stampProblem is what presence shows of a generation whose stamp file
// failed its check: the reason (missing, unreadable, changed) first.
func stampProblem(err error) string {
	reason := "refused"
	switch {
	case errors.Is(err, stamp.ErrStampMissing):
		reason = "missing"
	case errors.Is(err, stamp.ErrStampUnreadable):
		reason = "unreadable"
	case errors.Is(err, stamp.ErrHashMismatch):
		reason = "changed"
	}
	return "not standing: capability stamp file " + reason + " (" + err.Error() + "); it stands again once the file is back intact"
}

// stampFault makes a generation whose stamp file failed its check not
// standing until a check passes again: presence shows why; its token is
// kept, but every request of it and every decision for it proves the file
// first and is refused.
func (h *Hub) stampFault(personaID, hash string, err error) {
	if h.stamps.fault(personaID, hash) {
		h.log.Error("persona not standing: its capability stamp file failed its check", "persona", personaID, "err", err)
		h.woken.fire(personaID) // its open streams end
	}
	h.presence.Invalidate(personaID, stampProblem(err))
}

// refuseStamp refuses for good a generation whose stored stamp failed its
// check (the schema, the semantic validator, the boot check): the store's
// copy is written once, so it never stands; its token is revoked and
// presence shows the problem.
func (h *Hub) refuseStamp(personaID string, err error) {
	h.stamps.forget(personaID)
	h.stamps.mu.Lock()
	h.stamps.refused[personaID] = err
	h.stamps.mu.Unlock()
	h.tokens.Revoke(personaID)
	h.woken.fire(personaID)
	h.presence.Invalidate(personaID, "capability stamp refused: "+err.Error())
	h.log.Error("persona refused: its capability stamp failed its check", "persona", personaID, "err", err)
}

// sweepStamps checks the stamp file of every generation the watch holds,
// so that one removed or changed while its runtime is quiet shows in
// presence within a sweep; and one put back stands again.
func (h *Hub) sweepStamps() {
	h.stamps.mu.Lock()
	ids := make([]string, 0, len(h.stamps.seen))
	seen := make([]stampSeen, 0, len(h.stamps.seen))
	for id, s := range h.stamps.seen {
		ids, seen = append(ids, id), append(seen, s)
	}
	h.stamps.mu.Unlock()
	for i, id := range ids {
		h.proveCopy(id, seen[i], true)
	}
}

// present is the stat of a local stamp copy at path, in the generation
// directory dir: ErrStampMissing when the file is not there though the
// directory is (the generation was registered on this host), elsewhere
// when neither is (it was registered on another host's hub, which holds
// the file), ErrStampUnreadable when it is not a regular file or cannot be
// stat'ed.
func present(path, dir string) (fi os.FileInfo, elsewhere bool, err error) {
	fi, err = os.Lstat(path) // a link is refused, never followed
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if d, derr := os.Stat(dir); errors.Is(derr, fs.ErrNotExist) || derr == nil && !d.IsDir() {
			return nil, true, nil
		}
		return nil, false, fmt.Errorf("%s: %w", path, stamp.ErrStampMissing)
	case err != nil:
		return nil, false, fmt.Errorf("%s: %w: %v", path, stamp.ErrStampUnreadable, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, false, fmt.Errorf("%s: %w: it is a symbolic link, which is never followed: put the file back", path, stamp.ErrStampUnreadable)
	case !fi.Mode().IsRegular():
		return nil, false, fmt.Errorf("%s: %w: it is a %s, not a file", path, stamp.ErrStampUnreadable, fi.Mode().Type())
	}
	return fi, false, nil
}

// check is the one check of a local stamp copy at path (in the generation
// directory dir), by hash alone (the stamp every hub decides by is the
// store's, read in full): s is remembered once it matched, so while the
// file's stat is unchanged (known) the check is one stat. A generation
// registered without a stamp, or registered on another host, has nothing
// to check, which is remembered too.
func (w *stampWatch) check(personaID, path, dir string, s stampSeen, known bool) error {
	if s.hash == "" {
		w.remember(personaID, s, known)
		return nil
	}
	fi, elsewhere, err := present(path, dir)
	if err != nil {
		return err
	}
	if elsewhere {
		w.remember(personaID, stampSeen{hash: s.hash}, known && s == stampSeen{hash: s.hash})
		return nil
	}
	if known && s.same(fi) {
		return nil
	}
	b, err := stamp.ReadCopy(path)
	if err != nil {
		return err
	}
	if err := stamp.VerifyHash(path, b, s.hash); err != nil {
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
	w.seen[personaID] = s
	w.mu.Unlock()
}

// fault records that personaID's file failed its check: the watch keeps
// its hash with no stat (so that every check and sweep reads it again), and
// reports whether it was standing until now.
func (w *stampWatch) fault(personaID, hash string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen[personaID] = stampSeen{hash: hash}
	if _, ok := w.faults[personaID]; ok {
		return false
	}
	w.faults[personaID] = struct{}{}
	return true
}

// recovered reports whether personaID had a fault, which a passing check
// now clears.
func (w *stampWatch) recovered(personaID string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.faults[personaID]; !ok {
		return false
	}
	delete(w.faults, personaID)
	return true
}

// forget drops what is remembered of a retired or refused generation's
// stamp file.
func (w *stampWatch) forget(personaID string) {
	w.mu.Lock()
	delete(w.seen, personaID)
	delete(w.faults, personaID)
	delete(w.refused, personaID)
	w.mu.Unlock()
}
