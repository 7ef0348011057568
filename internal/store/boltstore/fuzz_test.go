package boltstore

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// FuzzOpen writes arbitrary bytes to a file and opens it as a database:
// "a damaged or non-bbolt file is refused with an error, never a panic".
// Whatever opens must also serve reads and a write without panicking.
func FuzzOpen(f *testing.F) {
	// A real database and damaged copies of it seed the pages the fuzzer
	// mutates; the committed corpus (testdata/fuzz/FuzzOpen) adds non-bbolt
	// files.
	real, err := os.ReadFile(populated(f, 20))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(real)
	f.Add(real[:len(real)/2])
	flipped := append([]byte{}, real...)
	for i := 3 * 4096; i < len(flipped); i += 97 {
		flipped[i] ^= 0x5a
	}
	f.Add(flipped)
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "virgo.db")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		b, err := Open(path, Options{})
		if err != nil {
			if !errors.Is(err, store.ErrCorrupt) && !errors.Is(err, store.ErrNewerSchema) {
				t.Fatalf("open: unnamed error %v", err)
			}
			return
		}
		defer b.Close()
		ctx := context.Background()
		b.List(ctx, "")
		b.Get(ctx, "persona/00001")
		b.Txn(ctx, nil, []store.Op{store.Put("persona/00001", []byte("x"))})
		ch, err := b.Watch(ctx, "", 0)
		if err == nil {
			go func() {
				for range ch {
				}
			}()
		}
	})
}

// FuzzRecord feeds the checksum readers arbitrary stored bytes: a record, a
// change-log entry and a counter are either accepted exactly as their
// writer would have written them, or refused as ErrRecordDamaged; never a
// panic, never a changed record accepted.
func FuzzRecord(f *testing.F) {
	f.Add([]byte("confirmation/c-1"), encodeRecord([]byte("confirmation/c-1"), 3, 7, []byte(`{"state":"pending"}`)))
	f.Add(logKey(7, 1), encodeEvent(logKey(7, 1), "persona/p-1", false))
	f.Add(keyRev, []byte{0, 0, 0, 0, 0, 0, 0, 9, 1, 2, 3, 4})
	f.Add([]byte("k"), []byte{})
	f.Fuzz(func(t *testing.T, key, raw []byte) {
		kv, err := decodeKV(key, raw)
		switch {
		case err == nil && !bytes.Equal(encodeRecord(key, kv.CreateRev, kv.ModRev, kv.Value), raw):
			t.Fatalf("accepted a record its writer would not write: %x", raw)
		case err != nil && !errors.Is(err, store.ErrRecordDamaged):
			t.Fatalf("record: unnamed error %v", err)
		}
		k, del, err := splitEvent(key, raw)
		switch {
		case err == nil && !bytes.Equal(encodeEvent(key, string(k), del), raw):
			t.Fatalf("accepted a log entry its writer would not write: %x", raw)
		case err != nil && !errors.Is(err, store.ErrRecordDamaged):
			t.Fatalf("log entry: unnamed error %v", err)
		}
		meta := map[string][]byte{string(key): raw}
		v, err := getCounter(getter(meta), key)
		if err == nil {
			out := map[string][]byte{}
			putCounter(putter(out), key, v)
			if !bytes.Equal(out[string(key)], raw) {
				t.Fatalf("accepted a counter its writer would not write: %x", raw)
			}
		} else if !errors.Is(err, store.ErrRecordDamaged) {
			t.Fatalf("counter: unnamed error %v", err)
		}
	})
}

type getter map[string][]byte

func (g getter) Get(k []byte) []byte { return g[string(k)] }

type putter map[string][]byte

func (p putter) Put(k, v []byte) error { p[string(k)] = v; return nil }
