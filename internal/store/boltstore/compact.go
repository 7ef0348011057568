package boltstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// compactTxBytes bounds the bytes bbolt.Compact writes in one transaction
// of the new file, so that compaction's memory does not grow with the
// database.
const compactTxBytes = 64 << 20

// Compacted is what CompactFile did.
type Compacted struct {
	// Path is the database file.
	Path string `json:"path"`
	// Before and After are its sizes in bytes.
	Before int64 `json:"before"`
	After  int64 `json:"after"`
}

// CompactFile returns the free pages of the database file at path to the
// file system: bbolt keeps pages freed by deletes (the retention sweep's)
// for reuse and never shrinks its file. It copies every record into a new
// file beside it (bbolt.Compact), syncs and checks that file in full
// (CheckFile), and only then renames it over path, so a crash at any point
// leaves either the old file or the new one, whole. It holds bbolt's lock
// on the old file throughout: while a hub (or any writer) holds it, it is
// refused with ErrLocked naming the file, and a hub that opens the path
// meanwhile meets the new file (openFile). The clean-close record of the
// old file is removed: the next open walks the new one.
func CompactFile(path string, timeout time.Duration) (Compacted, error) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	out := Compacted{Path: path}
	fi, err := os.Lstat(path)
	if err != nil {
		return out, fmt.Errorf("compact %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return out, fmt.Errorf("compact %s: %w: not a regular file", path, store.ErrCorrupt)
	}
	out.Before = fi.Size()
	release, _, err := precheck(path, timeout, nil)
	if err != nil {
		return out, err
	}
	src, err := openFile(path, timeout, true)
	release()
	if err != nil {
		return out, err
	}
	defer src.Close()
	if h, err := readHeader(src); err != nil {
		return out, err
	} else if h.fresh {
		return out, fmt.Errorf("compact %s: %w: a bbolt file that holds no virgo database", path, store.ErrCorrupt)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".virgo-compact-*")
	if err != nil {
		return out, fmt.Errorf("compact %s: %w", path, err)
	}
	tmpPath := tmp.Name()
	tmp.Close()
	defer os.Remove(tmpPath) // gone after the rename; removes a failed copy
	if err := compactInto(tmpPath, src); err != nil {
		return out, fmt.Errorf("compact %s: %w", path, err)
	}
	problems, err := CheckFile(tmpPath, timeout)
	if err == nil && len(problems) > 0 {
		err = fmt.Errorf("the compacted copy fails its check (%d problems), first: %w", len(problems), problems[0])
	}
	if err != nil {
		return out, fmt.Errorf("compact %s: %w; the database is unchanged", path, err)
	}
	if err := os.Rename(tmpPath, path); err != nil {
		return out, fmt.Errorf("compact %s: %w; the database is unchanged", path, err)
	}
	if err := syncDir(filepath.Dir(path)); err != nil {
		return out, err
	}
	if err := os.Remove(cleanClosePath(path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return out, fmt.Errorf("compact %s: remove the old file's clean-close record: %w", path, err)
	}
	if fi, err = os.Stat(path); err != nil {
		return out, fmt.Errorf("compact %s: %w", path, err)
	}
	out.After = fi.Size()
	return out, nil
}

// compactInto copies src's records into a new bbolt file at path, synced.
func compactInto(path string, src *bolt.DB) error {
	return guard("compact into "+path, func() error {
		dst, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: DefaultTimeout})
		if err != nil {
			return err
		}
		if err := bolt.Compact(dst, src, compactTxBytes); err != nil {
			dst.Close()
			return err
		}
		if err := dst.Sync(); err != nil {
			dst.Close()
			return err
		}
		return dst.Close()
	})
}
