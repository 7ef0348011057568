//go:build !linux

package boltstore

import "io/fs"

// stateOf: the clean-close record is kept on Linux only, where the change
// time it relies on is read from syscall.Stat_t; elsewhere every open walks.
func stateOf(fs.FileInfo, boltMeta) (cleanState, bool) { return cleanState{}, false }

// ctimeOf: see stateOf.
func ctimeOf(fs.FileInfo) (int64, bool) { return 0, false }
