package boltstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/virgo-hub/virgo-tui/internal/private"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// Defaults of Options.
const (
	// DefaultTimeout is how long Open waits for another opener to let go.
	DefaultTimeout = time.Second
	// DefaultWatchHistory is how many change-log entries are kept for Watch.
	DefaultWatchHistory = 100_000
	// DefaultWatchHistoryBytes bounds the change log's keys and values in
	// bytes. An entry names a key, not its value, so 100,000 entries of
	// 40-byte keys take about 6 MB; the bound matters for long keys.
	DefaultWatchHistoryBytes = 8 << 20
)

// ErrNotPrivate: the database file or its directory is readable by other
// users and could not be made owner-private.
var ErrNotPrivate = errors.New("database location is not owner-private")

// Options tune Open; the zero value is the default.
type Options struct {
	// Timeout bounds the wait for the file lock held by another opener;
	// 0 means DefaultTimeout. After it Open fails with ErrLocked.
	Timeout time.Duration
	// WatchHistory is how many change-log entries are kept; a Watch from
	// an older revision fails with ErrCompacted. 0 means DefaultWatchHistory.
	WatchHistory int
	// WatchHistoryBytes bounds the change log's size in bytes (its keys and
	// entries, before bbolt's own overhead) as WatchHistory bounds its
	// entries; whichever is reached first trims it. 0 means
	// DefaultWatchHistoryBytes.
	WatchHistoryBytes int64
}

// Open opens or creates the bbolt database at path.
//
// Files are owner-private: a missing directory is created 0700, a new file
// 0600. An existing directory or a valid existing database with group or
// other permission bits is tightened (chmod) rather than refused, because the
// operator's intent — a private database — is clear; if chmod fails the open
// fails with ErrNotPrivate. A refused file is never chmodded nor written.
//
// Errors: ErrLocked when another process (a hub or a command) holds the file
// beyond opts.Timeout; ErrNewerSchema when a newer virgo-tui wrote it;
// ErrCorrupt for anything that is not an intact virgo database, including a
// bbolt file of another application and an existing empty file. In every
// refusal the file's bytes are left unchanged.
func Open(path string, opts Options) (*Store, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.WatchHistory <= 0 {
		opts.WatchHistory = DefaultWatchHistory
	}
	if opts.WatchHistoryBytes <= 0 {
		opts.WatchHistoryBytes = DefaultWatchHistoryBytes
	}
	if err := privateDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	var walked bool // the pre-open check walked every page
	fi, err := os.Lstat(path)
	switch {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		// bbolt would open (and write) the link's target: refused by name.
		return nil, private.RefuseLink(path)
	case err == nil && fi.IsDir():
		return nil, fmt.Errorf("%w: %s is a directory, not a database file", store.ErrCorrupt, path)
	case err == nil:
		// Validate through a read-only open first: a read-write open may
		// write to the file (bbolt syncs a missing freelist), and a file
		// we refuse must stay byte-for-byte as it was.
		var release func()
		release, walked, err = precheck(path, opts.Timeout, readCleanClose(path))
		if err != nil {
			return nil, err
		}
		db, err := openFile(path, opts.Timeout, true)
		release()
		if err != nil {
			return nil, err
		}
		_, err = readHeader(db)
		db.Close()
		if err != nil {
			return nil, err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("open database: %w", err)
	}

	// bbolt may write as it opens for writing: the record of the last
	// clean close goes first (cleanclose.go).
	if err := forgetCleanClose(path); err != nil {
		return nil, err
	}
	db, err := openFile(path, opts.Timeout, false)
	if err != nil {
		return nil, err
	}
	h, err := readHeader(db)
	switch {
	case err != nil:
	case h.fresh:
		err = guard("initialise "+path, func() error { return db.Update(initialise) })
	}
	if err == nil {
		err = privateFile(path)
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	b := &Store{path: path, db: db, history: opts.WatchHistory, historyBytes: opts.WatchHistoryBytes, closing: make(chan struct{}), walkedAtOpen: walked}
	b.idle.L = &b.mu
	b.rev.Store(h.rev)
	return b, nil
}

// openFile is bolt.Open with its errors named and its panics caught. A
// file replaced at path while the open waited for its lock (store compact
// renames the compacted copy over it) is let go and path opened again, so
// that nobody serves a file no name leads to.
func openFile(path string, timeout time.Duration, readOnly bool) (*bolt.DB, error) {
	for {
		db, file, err := openFileOnce(path, timeout, readOnly)
		if err != nil {
			return nil, err
		}
		held, herr := file.Stat()
		named, nerr := os.Stat(path)
		if herr == nil && nerr == nil && !os.SameFile(held, named) {
			db.Close()
			continue
		}
		return db, nil
	}
}

// openFileOnce is one bolt.Open of openFile, with the file it opened.
func openFileOnce(path string, timeout time.Duration, readOnly bool) (*bolt.DB, *os.File, error) {
	var file *os.File
	var db *bolt.DB
	err := guard("open "+path, func() (err error) {
		defer func() {
			// On a panic bbolt never closed the file; release its lock.
			if db == nil && file != nil {
				file.Close()
			}
		}()
		db, err = bolt.Open(path, 0o600, &bolt.Options{
			Timeout:  timeout,
			ReadOnly: readOnly,
			OpenFile: func(name string, flag int, perm os.FileMode) (*os.File, error) {
				f, err := os.OpenFile(name, flag, perm)
				file = f
				return f, err
			},
		})
		return err
	})
	switch {
	case err == nil:
		return db, file, nil
	case errors.Is(err, berrors.ErrTimeout):
		return nil, nil, lockedError(path)
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrChecksum),
		errors.Is(err, berrors.ErrVersionMismatch), errors.Is(err, berrors.ErrInvalidMapping):
		return nil, nil, fmt.Errorf("%w: %s: %w", store.ErrCorrupt, path, err)
	case errors.Is(err, store.ErrCorrupt):
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	default:
		return nil, nil, fmt.Errorf("open database %s: %w", path, err)
	}
}

// lockedError names the file and who holds it.
func lockedError(path string) error {
	return fmt.Errorf("%w: %s is held by another virgo-tui (a hub or a command); "+
		"stop it, or run the command through the running hub", store.ErrLocked, path)
}

// header is what Open learns from the meta bucket.
type header struct {
	fresh bool // a bbolt file without any bucket: ours to initialise
	rev   int64
}

// readHeader tells a virgo database from a fresh file, a newer schema, a
// foreign bbolt file or a damaged one.
func readHeader(db *bolt.DB) (header, error) {
	var h header
	path := db.Path()
	err := guard("read the header of "+path, func() error {
		return db.View(func(tx *bolt.Tx) error {
			meta := tx.Bucket(bucketMeta)
			if meta == nil {
				names := bucketNames(tx, 3)
				if len(names) == 0 {
					h.fresh = true
					return nil
				}
				return fmt.Errorf("%w: %s is a bbolt database of another application (buckets %s); refusing to adopt it",
					store.ErrCorrupt, path, strings.Join(names, ", "))
			}
			v, err := getSchema(meta)
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			switch {
			case v > SchemaVersion:
				return fmt.Errorf("%w: %s has schema version %d, this virgo-tui understands up to %d; "+
					"upgrade virgo-tui (the file was not changed)", store.ErrNewerSchema, path, v, SchemaVersion)
			case v < 1:
				return fmt.Errorf("%w: %s has schema version %d", store.ErrCorrupt, path, v)
			}
			if tx.Bucket(bucketKV) == nil || tx.Bucket(bucketLog) == nil {
				return fmt.Errorf("%w: %s lacks its key or log bucket", store.ErrCorrupt, path)
			}
			for _, k := range [][]byte{keyCompacted, keyLogN, keyLogBytes} {
				if _, err := getCounter(meta, k); err != nil {
					return fmt.Errorf("%w: %s: %w", store.ErrCorrupt, path, err)
				}
			}
			h.rev, err = getCounter(meta, keyRev)
			if err != nil {
				return fmt.Errorf("%w: %s: %w", store.ErrCorrupt, path, err)
			}
			return nil
		})
	})
	return h, err
}

// bucketNames quotes up to n top-level bucket names, shortened, for a
// message; it stops early so a damaged root cannot make it slow.
func bucketNames(tx *bolt.Tx, n int) []string {
	var names []string
	c := tx.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		if len(names) == n {
			return append(names, "…")
		}
		if len(k) > 40 {
			k = k[:40]
		}
		names = append(names, fmt.Sprintf("%q", k))
	}
	return names
}

// initialise lays out a fresh file at revision 0.
func initialise(tx *bolt.Tx) error {
	meta, err := tx.CreateBucket(bucketMeta)
	if err != nil {
		return err
	}
	for _, name := range [][]byte{bucketKV, bucketLog} {
		if _, err := tx.CreateBucket(name); err != nil {
			return err
		}
	}
	for _, k := range [][]byte{keyRev, keyCompacted, keyLogN, keyLogBytes} {
		if err := putCounter(meta, k, 0); err != nil {
			return err
		}
	}
	return putSchema(meta, SchemaVersion)
}

// privateDir creates dir 0700, or strips group and other bits from it
// (through a descriptor: a link there is refused, never chmod-ed through).
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create database directory: %w", err)
	}
	return private.Tighten(dir)
}

// privateFile strips group and other bits from an accepted database file,
// refusing a link or another user's file.
func privateFile(path string) error { return private.Tighten(path) }
