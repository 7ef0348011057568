package boltstore

import (
	"errors"
	"fmt"
	"runtime/debug"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// guard runs f, turning a panic into ErrCorrupt. bbolt trusts the pages it
// maps, so a damaged file can make it index out of range or touch memory
// past the end of a short file (a fault, which SetPanicOnFault turns into a
// recoverable panic on this goroutine). The store must never take the hub
// down with it: a damaged page becomes an error naming the operation.
func guard(op string, f func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %s failed inside bbolt: %v", store.ErrCorrupt, op, r)
		}
	}()
	return f()
}

// view is a guarded read transaction; a closed database reads as ErrClosed.
func (b *Store) view(op string, f func(tx *bolt.Tx) error) error {
	if b.closed.Load() {
		return store.ErrClosed
	}
	err := guard(op, func() error { return b.db.View(f) })
	if errors.Is(err, berrors.ErrDatabaseNotOpen) {
		return store.ErrClosed
	}
	return err
}
