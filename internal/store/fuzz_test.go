package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
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
		b, err := OpenBolt(path, Options{})
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrNewerSchema) {
				t.Fatalf("open: unnamed error %v", err)
			}
			return
		}
		defer b.Close()
		ctx := context.Background()
		b.List(ctx, "")
		b.Get(ctx, "persona/00001")
		b.Txn(ctx, nil, []Op{Put("persona/00001", []byte("x"))})
		ch, err := b.Watch(ctx, "", 0)
		if err == nil {
			go func() {
				for range ch {
				}
			}()
		}
	})
}
