package boltstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// MaxProblems bounds the problems one check reports; a file damaged beyond
// it is reported as such, with the first MaxProblems.
const MaxProblems = 1000

// ErrBackupExists: the backup's target file exists; a backup never
// overwrites a file.
var ErrBackupExists = errors.New("backup target exists")

// Check reads the whole database in one read transaction: bbolt's own
// consistency check of the pages, and every record, change-log entry and
// counter against its checksum. It returns every problem found, each an
// ErrRecordDamaged or ErrCorrupt naming what is damaged (none: the store is
// intact); the error is for a check that could not run.
func (b *Store) Check(ctx context.Context) ([]error, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var problems []error
	err := b.view("check "+b.path, func(tx *bolt.Tx) error {
		problems = checkTx(tx)
		return nil
	})
	return problems, err
}

// checkTx is Check inside a transaction.
func checkTx(tx *bolt.Tx) []error {
	var problems []error
	add := func(err error) bool {
		if len(problems) == MaxProblems {
			problems = append(problems, fmt.Errorf("%w: more than %d problems; the rest are not listed", store.ErrCorrupt, MaxProblems))
		}
		if len(problems) > MaxProblems {
			return false
		}
		problems = append(problems, err)
		return true
	}
	for err := range tx.Check() {
		add(fmt.Errorf("%w: %v", store.ErrCorrupt, err))
	}
	meta, kv, log := tx.Bucket(bucketMeta), tx.Bucket(bucketKV), tx.Bucket(bucketLog)
	if meta == nil || kv == nil || log == nil {
		add(fmt.Errorf("%w: a virgo bucket is missing", store.ErrCorrupt))
		return problems
	}
	counters := map[string]int64{}
	for _, k := range [][]byte{keyRev, keyCompacted, keyLogN, keyLogBytes} {
		v, err := getCounter(meta, k)
		if err != nil && !add(err) {
			return problems
		}
		counters[string(k)] = v
	}
	c := kv.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if err := checkStored(k, v); err != nil && !add(err) {
			return problems
		}
	}
	var n, size int64
	c = log.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if _, _, err := splitEvent(k, v); err != nil && !add(err) {
			return problems
		}
		n, size = n+1, size+logEntrySize(k, v)
	}
	if n != counters[string(keyLogN)] || size != counters[string(keyLogBytes)] {
		add(damaged(fmt.Sprintf("meta: the change log holds %d entries of %d bytes, its counters say %d and %d",
			n, size, counters[string(keyLogN)], counters[string(keyLogBytes)])))
	}
	return problems
}

// CheckFile checks the database file at path without writing to it: the
// pre-open page walk, then Check's reading of every record. Damage is
// returned as problems; the error is for a file that cannot be checked at all (missing,
// or locked by a writer: ErrLocked).
func CheckFile(path string, timeout time.Duration) ([]error, error) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("check %s: %w", path, err)
	}
	// No clean-close record is consulted: a check walks every page.
	release, _, err := precheck(path, timeout, nil)
	switch {
	case errors.Is(err, store.ErrCorrupt):
		return []error{err}, nil
	case err != nil:
		return nil, err
	}
	db, err := openFile(path, timeout, true)
	release()
	switch {
	case errors.Is(err, store.ErrCorrupt):
		return []error{err}, nil
	case err != nil:
		return nil, err
	}
	defer db.Close()
	h, err := readHeader(db)
	switch {
	case errors.Is(err, store.ErrCorrupt), errors.Is(err, store.ErrNewerSchema):
		return []error{err}, nil
	case err != nil:
		return nil, err
	case h.fresh:
		return nil, nil
	}
	var problems []error
	err = guard("check "+path, func() error {
		return db.View(func(tx *bolt.Tx) error {
			problems = checkTx(tx)
			return nil
		})
	})
	if errors.Is(err, store.ErrCorrupt) {
		return append(problems, err), nil
	}
	return problems, err
}

// WriteTo writes a consistent copy of the whole database (one read
// transaction's snapshot, bbolt's Tx.WriteTo) to w while writers go on, and
// returns the bytes written. Size says beforehand how many that will be.
func (b *Store) WriteTo(w io.Writer) (n int64, err error) {
	err = b.view("copy "+b.path, func(tx *bolt.Tx) error {
		n, err = tx.WriteTo(w)
		return err
	})
	return n, err
}

// WriteBackup makes a checked backup at path from copy, which writes a
// database's bytes (Store.WriteTo, or a hub's answer to a backup request):
// it writes a temporary file beside path (0600), syncs it, checks it with
// CheckFile, and only then gives it its name, as a hard link, so that an
// existing file is never replaced (ErrBackupExists). A copy that fails its
// check is removed and its first problem returned. It returns the size.
func WriteBackup(path string, copy func(io.Writer) (int64, error)) (int64, error) {
	if _, err := os.Lstat(path); err == nil {
		return 0, fmt.Errorf("%w: %s; choose a new name or remove it first", ErrBackupExists, path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".virgo-backup-*")
	if err != nil {
		return 0, fmt.Errorf("backup: %w", err)
	}
	defer os.Remove(tmp.Name())
	n, err := copy(tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("backup to %s: %w", path, err)
	}
	problems, err := CheckFile(tmp.Name(), 0)
	if err == nil && len(problems) > 0 {
		err = fmt.Errorf("the copy fails its check (%d problems), first: %w", len(problems), problems[0])
	}
	if err != nil {
		return 0, fmt.Errorf("backup to %s: %w", path, err)
	}
	if err := os.Link(tmp.Name(), path); errors.Is(err, os.ErrExist) {
		return 0, fmt.Errorf("%w: %s; choose a new name or remove it first", ErrBackupExists, path)
	} else if err != nil {
		return 0, fmt.Errorf("backup to %s: %w", path, err)
	}
	return n, syncDir(filepath.Dir(path))
}

// syncDir makes a new name in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// BackupFile makes a checked backup (WriteBackup) of the database file at
// src without writing to src: for when no hub runs, it opens the file
// read-only after the pre-open check, under bbolt's shared lock (ErrLocked
// while a writer holds it).
func BackupFile(src, dst string, timeout time.Duration) (int64, error) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	release, _, err := precheck(src, timeout, nil)
	if err != nil {
		return 0, err
	}
	db, err := openFile(src, timeout, true)
	release()
	if err != nil {
		return 0, err
	}
	defer db.Close()
	if _, err := readHeader(db); err != nil {
		return 0, err
	}
	return WriteBackup(dst, func(w io.Writer) (n int64, err error) {
		err = guard("copy "+src, func() error {
			return db.View(func(tx *bolt.Tx) error {
				n, err = tx.WriteTo(w)
				return err
			})
		})
		return n, err
	})
}
