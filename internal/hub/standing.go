package hub

import (
	"context"

	"golang.org/x/sys/unix"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// checkStanding checks an active generation's capability stamp before the
// hub advertises it as standing: the stored stamp in full
// (usecase.Cases.CheckStanding), then this host's local copy by hash, as
// every request of its runtime does later (checkStamp). A refused stored
// stamp leaves the generation offline with the problem for good, and its
// token is not accepted: checkStanding then reports false. A local copy
// missing, unreadable or changed makes it not standing until the copy is
// back intact (stampFault): its token is accepted, but every request of it
// proves the copy first.
func (h *Hub) checkStanding(p registry.Persona) bool {
	if err := h.cases.CheckStanding(p); err != nil {
		h.refuseStamp(p.ID, err)
		return false
	}
	h.proveCopy(p.ID, stampSeen{hash: p.StampHash}, false)
	return true
}

// checkPresent is the part of the stamp check a hub's start makes for
// every active generation of ps while presence is held (Tracker.Hold): one
// stat of its local copy, so that a copy missing or unreadable while the
// hub was down is not standing in the first answer about it (the full
// checks follow, checkAllStamps).
// At 10,000 generations these stats are the largest part of a start, so
// each is one fstatat of a two-name path from the open personas directory,
// with nothing built for a copy that is a regular file; anything else there
// is judged by present, as every later check is.
func (h *Hub) checkPresent(ps []registry.Persona) {
	dir, err := unix.Open(h.cfg.Home.PersonasDir(), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err == nil {
		defer unix.Close(dir)
	}
	var st unix.Stat_t
	for _, p := range ps {
		if p.State != registry.StateActive || p.StampHash == "" {
			continue
		}
		if err == nil && unix.Fstatat(dir, p.ID+"/"+stamp.FileName, &st, unix.AT_SYMLINK_NOFOLLOW) == nil &&
			st.Mode&unix.S_IFMT == unix.S_IFREG {
			continue
		}
		if _, _, err := present(h.stampPath(p.ID), h.cfg.Home.GenerationDir(p.ID)); err != nil {
			h.stampFault(p.ID, p.StampHash, err)
		}
	}
}

// StartChecked is the message a hub logs once it has checked the stamp of
// every active generation it loaded at start, and let go of the database
// pages its start read: from then on it holds what serving needs.
const StartChecked = "capability stamps checked"

// checkAllStamps checks the stamp of every generation of ps (the records
// loaded at start) that is active, once, after the hub started serving.
// A generation activated since is checked as its change arrives.
// It returns how many it checked.
func (h *Hub) checkAllStamps(ctx context.Context, ps []registry.Persona) int {
	n := 0
	for _, p := range ps {
		if ctx.Err() != nil {
			return n
		}
		if p.State == registry.StateActive {
			h.checkStanding(p)
			h.stamps.checked(p.ID)
			n++
		}
	}
	h.stamps.allChecked()
	return n
}
