package boltstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/private"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
)

// The clean-close record. The pre-open page walk (pagewalk.go) reads every
// page of the file, so a start with it grows with the file's history. It is
// there against damage done to the file while no store had it open; a file
// that nothing has written since this store closed it cleanly cannot carry
// such damage. So a clean Close records, in a private file beside the
// database (<db>.clean, 0600), the file's identity and state — device,
// inode, size, modification and change times in nanoseconds, and the
// transaction id and checksum of its valid meta page — and the next open
// skips the walk when every one of them still holds (the cheap checks of
// the meta pages and of the size against the high-water mark still run).
// Anything else walks: no record, a record that does not parse or is not
// the owner's private file, a record of another file (a copy or a restore
// has another inode), a file written since (any write moves the change
// time, which no one can set back from user space).
//
// The record is removed (and the removal synced) before the file is opened
// for writing, so a crash or a kill -9 of the writer always leaves none, and
// the open after it walks. The record never covers a write by another
// program while the store has the file open, nor one in the same tick of the
// file system's clock as the close; silent media damage with no write at all
// is caught by the records' checksums and by bbolt's own checks, not by the
// walk (docs/store.md, docs/security.md).

// cleanCloseFormat versions the record; a record of another format walks.
const cleanCloseFormat = 1

// cleanState is the database file's identity and state at a clean close,
// as recorded and as compared.
type cleanState struct {
	Format  int    `json:"format"`
	Dev     uint64 `json:"dev"`
	Ino     uint64 `json:"ino"`
	Size    int64  `json:"size"`
	MtimeNs int64  `json:"mtime_ns"`
	CtimeNs int64  `json:"ctime_ns"`
	TxID    uint64 `json:"txid"`
	MetaSum uint64 `json:"meta_checksum"`
}

// cleanClosePath is the record's file beside the database at path.
func cleanClosePath(path string) string { return path + ".clean" }

// readCleanClose returns the record of the last clean close of the database
// at path, or nil when there is none to trust: missing, not the owner's
// private regular file, or not exactly one record of this format. A nil
// record makes the open walk every page.
func readCleanClose(path string) *cleanState {
	data, err := private.ReadFile(cleanClosePath(path))
	if err != nil {
		return nil
	}
	var s cleanState
	if err := strictjson.Decode(data, &s); err != nil || s.Format != cleanCloseFormat {
		return nil
	}
	return &s
}

// forgetCleanClose removes the record of the database at path and syncs
// its directory, so that no record survives the writes that follow. A
// record that cannot be removed fails the open: it could vouch for a file
// this open is about to change.
func forgetCleanClose(path string) error {
	side := cleanClosePath(path)
	err := os.Remove(side)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("remove %s, the record of the database's last clean close, before writing to the database: %w; remove it by hand", side, err)
	}
	return syncDir(filepath.Dir(path))
}

// recordCleanClose writes the record of a clean close of the database at
// path, which the caller has committed and still holds locked. The record
// is kept only once the file system's clock has moved past the file's
// change time, so that any later write gives the file another change time:
// the record's own change time shows the clock, and it is touched again,
// for a few milliseconds at most, until it has passed. A record that cannot
// be written is not an error: without one the next open walks every page,
// as it always did.
//
// Nothing more is synced than private.Create's write of the record: every
// commit's pages are already synced, and what a power loss can undo — the
// file's times, the record's name — only ever makes the next open walk.
func recordCleanClose(path string) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return
	}
	m, err := readLiveMeta(path, f, fi.Size())
	if err != nil {
		return
	}
	s, ok := stateOf(fi, m)
	if !ok {
		return
	}
	data, err := json.Marshal(s)
	if err != nil {
		return
	}
	side := cleanClosePath(path)
	os.Remove(side)
	if private.Create(side, append(data, '\n')) != nil {
		return
	}
	if !clockPassed(side, s.CtimeNs) {
		os.Remove(side)
	}
}

// clockPassed reports whether the file system's clock, as the change time
// of the record at side shows it, is past ctime, touching the record (a
// chmod sets its change time) every 2 ms for up to 50 ms until it is.
func clockPassed(side string, ctime int64) bool {
	for try := 0; ; try++ {
		f, err := os.OpenFile(side, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
		if err != nil {
			return false
		}
		if try > 0 && f.Chmod(0o600) != nil {
			f.Close()
			return false
		}
		fi, err := f.Stat()
		f.Close()
		if err != nil {
			return false
		}
		if now, ok := ctimeOf(fi); ok && now > ctime {
			return true
		}
		if try == 25 {
			return false
		}
		time.Sleep(2 * time.Millisecond)
	}
}
