package store_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
)

// A JSON record reads back with its revision; an absent key is revision 0
// (the condition "still absent"); a record that is not JSON of the type is
// ErrCorrupt, never a half-filled value passed on as good.
func TestJSONRecordsRoundTrip(t *testing.T) {
	s, err := boltstore.Open(filepath.Join(t.TempDir(), "virgo", "virgo.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx := context.Background()
	type rec struct{ Name string }
	var got rec
	if rev, err := store.GetJSON(ctx, s, "r/absent", &got); rev != 0 || err != nil {
		t.Fatalf("absent key: rev %d, %v", rev, err)
	}
	op, err := store.PutJSON("r/one", rec{Name: "Spica"})
	if err != nil {
		t.Fatal(err)
	}
	wrote, err := s.Txn(ctx, nil, []store.Op{op})
	if err != nil {
		t.Fatal(err)
	}
	if rev, err := store.GetJSON(ctx, s, "r/one", &got); rev != wrote || err != nil || got.Name != "Spica" {
		t.Fatalf("read back %+v at rev %d (wrote %d): %v", got, rev, wrote, err)
	}
	if _, err := s.Txn(ctx, nil, []store.Op{store.Put("r/bad", []byte("not json"))}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.GetJSON(ctx, s, "r/bad", &got); !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("a record that is not JSON: %v, want ErrCorrupt", err)
	}
}
