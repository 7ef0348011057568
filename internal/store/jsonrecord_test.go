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
// ErrCorrupt, never a half-filled value passed on as good: a record with a
// name twice, invalid UTF-8 or trailing data is not JSON of the type.
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
	// No encoder writes these; encoding/json v1 would read each as a
	// record (the last name, U+FFFD, Name for "name").
	for key, value := range map[string]string{
		"r/twice":   `{"Name":"Spica","Name":"Heze"}`,
		"r/utf8":    "{\"Name\":\"Sp\xffica\"}",
		"r/trailer": `{"Name":"Spica"}{}`,
		"r/case":    `{"name":"Spica"}`,
	} {
		if _, err := s.Txn(ctx, nil, []store.Op{store.Put(key, []byte(value))}); err != nil {
			t.Fatal(err)
		}
		if _, err := store.GetJSON(ctx, s, key, &got); key != "r/case" && !errors.Is(err, store.ErrCorrupt) {
			t.Errorf("record %s: %v, want ErrCorrupt", value, err)
		}
	}
	got = rec{}
	if _, err := store.GetJSON(ctx, s, "r/case", &got); err != nil || got.Name != "" {
		t.Errorf(`record {"name":"Spica"} read as %+v, %v; want its name unread (names match exactly)`, got, err)
	}
	// A member this build has no field for is a newer hub's on the same
	// store: the record is read, the member skipped.
	if _, err := s.Txn(ctx, nil, []store.Op{store.Put("r/newer", []byte(`{"Name":"Spica","Since":"2027"}`))}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.GetJSON(ctx, s, "r/newer", &got); err != nil || got.Name != "Spica" {
		t.Errorf("a record with a newer member: %+v, %v; want it read", got, err)
	}
}
