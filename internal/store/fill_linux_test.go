//go:build linux

package store

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"syscall"
	"testing"
)

// seekHole is lseek's SEEK_HOLE: the offset of the first hole at or after
// the given one, the file's size when there is none.
const seekHole = 4

// TestGrowthLeavesNoHole: after commits that grew the file past several of
// bbolt's growth steps, the file has no hole (its tail past the high-water
// mark was written with zeros), and everything committed reads back.
func TestGrowthLeavesNoHole(t *testing.T) {
	b, path := openT(t, Options{})
	ctx := context.Background()
	value := bytes.Repeat([]byte("v"), 4000)
	const n = 600 // about 2.4 MB: the file grows through several doublings
	for i := range n {
		if _, err := b.Txn(ctx, nil, []Op{Put(fmt.Sprintf("grow/%04d", i), value)}); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	hole, err := syscall.Seek(int(f.Fd()), 0, seekHole)
	if err != nil {
		t.Skipf("the file system does not tell holes: %v", err)
	}
	if hole != fi.Size() {
		t.Errorf("hole at byte %d of the %d-byte file", hole, fi.Size())
	}
	kvs, err := b.List(ctx, "grow/")
	if err != nil || len(kvs) != n {
		t.Fatalf("listed %d keys (%v), want %d", len(kvs), err, n)
	}
	for _, kv := range kvs {
		if !bytes.Equal(kv.Value, value) {
			t.Fatalf("%s reads back %d bytes, not the value written", kv.Key, len(kv.Value))
		}
	}
}
