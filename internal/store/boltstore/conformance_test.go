package boltstore_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
	"github.com/virgo-hub/virgo-tui/internal/store/storetest"
)

// The bbolt store runs the one conformance suite of the Store contract.
func TestConformance(t *testing.T) {
	storetest.Run(t, storetest.Harness{
		Open: func(t *testing.T) store.Store {
			b, err := boltstore.Open(filepath.Join(t.TempDir(), "virgo", "virgo.db"), boltstore.Options{WatchHistory: 512})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { b.Close() })
			return b
		},
		Compact: compactBolt,
	})
}

// compactBolt trims the change log past the current revision the way the
// store does it: by writing more than it keeps (a full transaction of
// filler keys, then their deletion, until the trim has passed).
func compactBolt(t *testing.T, s store.Store) {
	b := s.(*boltstore.Store)
	ctx := context.Background()
	target, err := b.Rev(ctx)
	if err != nil {
		t.Fatal(err)
	}
	puts := make([]store.Op, store.MaxTxnOps)
	dels := make([]store.Op, store.MaxTxnOps)
	for i := range puts {
		key := fmt.Sprintf("~compaction-filler/%03d", i)
		puts[i], dels[i] = store.Put(key, nil), store.Op{Key: key, Delete: true}
	}
	for {
		st, err := b.Stats()
		if err != nil {
			t.Fatal(err)
		}
		if st.Compacted >= target {
			return
		}
		for _, ops := range [][]store.Op{puts, dels} {
			if _, err := b.Txn(ctx, nil, ops); err != nil {
				t.Fatal(err)
			}
		}
	}
}
