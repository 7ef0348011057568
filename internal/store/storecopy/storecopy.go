// Package storecopy moves an installation from one store to another (a
// bbolt file to an etcd cluster, or back): every key, in transactions
// within the store's limits, then a check that both sides hold the same
// keys and values, by count and by hash.
//
// Revisions are not copied: the destination numbers its own writes, so a
// key's CreateRev and ModRev differ after the copy. Nothing of the
// installation refers to a revision across a hub run (the change stream is
// numbered per run, by its epoch), so a hub started on the destination
// serves the same installation and its consoles resync.
package storecopy

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// Named errors of a copy.
var (
	// ErrDestinationNotEmpty: the destination already holds keys; a copy
	// into it would mix two installations. Options.Replace deletes them
	// first.
	ErrDestinationNotEmpty = errors.New("the destination store is not empty")
	// ErrMismatch: after the copy the two stores differ in their keys or
	// values (the source changed during the copy: a hub was running on it).
	ErrMismatch = errors.New("the copy does not match its source")
)

// pageSize is how many keys one read of a store.Walk returns: the copy and the
// check hold one page at a time, whatever the installation's size.
const pageSize = 128

// Options tune a copy.
type Options struct {
	// Replace deletes every key of the destination before the copy,
	// instead of refusing a non-empty one.
	Replace bool
}

// Summary is what one side of a checked copy holds.
type Summary struct {
	// Keys and Bytes count the keys and their keys' and values' bytes.
	Keys  int64 `json:"keys"`
	Bytes int64 `json:"bytes"`
	// SHA256 hashes every key and value in key order, each length-prefixed.
	SHA256 string `json:"sha256"`
	// Revision is the store's revision when it was checked.
	Revision int64 `json:"revision"`
}

// Report is what a copy did and checked.
type Report struct {
	// Replaced counts the destination's keys deleted first (Options.Replace).
	Replaced int64 `json:"replaced"`
	// Leased counts the source's keys on a lease, left out of the copy.
	Leased      int64   `json:"leased"`
	Source      Summary `json:"source"`
	Destination Summary `json:"destination"`
}

// Copy writes every key of from into to, except keys on a lease (a live
// hub's state, which would become permanent keys there: Report.Leased
// counts them), and checks that both then hold the same keys and values. The source must not change meanwhile: no hub
// may run on it (a bbolt source is locked by being open; an etcd source is
// the operator's to quiesce), else the check fails with ErrMismatch. On an
// error midway the destination holds part of the installation; running the
// copy again with Replace starts it over.
func Copy(ctx context.Context, from, to store.Store, opts Options) (Report, error) {
	var rep Report
	if err := store.Walk(ctx, to, "", pageSize, func(kvs []store.KV) error {
		if !opts.Replace {
			return fmt.Errorf("%w: it holds keys (the first: %q); copy into an empty store, or replace its contents", ErrDestinationNotEmpty, kvs[0].Key)
		}
		ops := make([]store.Op, len(kvs))
		for i, kv := range kvs {
			ops[i] = store.Op{Key: kv.Key, Delete: true}
		}
		rep.Replaced += int64(len(kvs))
		_, err := store.WriteAll(ctx, to, ops)
		return err
	}); err != nil {
		return rep, fmt.Errorf("clear the destination: %w", err)
	}
	if err := store.Walk(ctx, from, "", pageSize, func(kvs []store.KV) error {
		ops := make([]store.Op, 0, len(kvs))
		for _, kv := range kvs {
			if kv.Lease != 0 {
				rep.Leased++
				continue
			}
			ops = append(ops, store.Put(kv.Key, kv.Value))
		}
		_, err := store.WriteAll(ctx, to, ops)
		return err
	}); err != nil {
		return rep, fmt.Errorf("copy: %w", err)
	}
	var err error
	if rep.Source, err = Summarize(ctx, from); err != nil {
		return rep, fmt.Errorf("check the source: %w", err)
	}
	if rep.Destination, err = Summarize(ctx, to); err != nil {
		return rep, fmt.Errorf("check the destination: %w", err)
	}
	s, d := rep.Source, rep.Destination
	if s.Keys != d.Keys || s.Bytes != d.Bytes || s.SHA256 != d.SHA256 {
		return rep, fmt.Errorf("%w: the source has %d keys (%d bytes, sha256 %s), the destination %d (%d bytes, sha256 %s); "+
			"stop every hub on the source and copy again, replacing the destination", ErrMismatch, s.Keys, s.Bytes, s.SHA256, d.Keys, d.Bytes, d.SHA256)
	}
	return rep, nil
}

// Summarize counts and hashes every key and value of s, in key order,
// except keys on a lease: those are live hubs' run-time state (presence,
// announcements, election candidates), which the copy leaves out and which
// come and go while the installation stays the same.
func Summarize(ctx context.Context, s store.Store) (Summary, error) {
	rev, err := s.Rev(ctx)
	if err != nil {
		return Summary{}, err
	}
	sum := Summary{Revision: rev}
	h := sha256.New()
	err = store.Walk(ctx, s, "", pageSize, func(kvs []store.KV) error {
		for _, kv := range kvs {
			if kv.Lease != 0 {
				continue
			}
			writeField(h, []byte(kv.Key))
			writeField(h, kv.Value)
			sum.Keys++
			sum.Bytes += int64(len(kv.Key) + len(kv.Value))
		}
		return nil
	})
	sum.SHA256 = hex.EncodeToString(h.Sum(nil))
	return sum, err
}

// writeField hashes b with its length first, so that no two different
// sequences of keys and values hash alike by shifting a boundary.
func writeField(h hash.Hash, b []byte) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(b)))
	h.Write(n[:])
	h.Write(b)
}
