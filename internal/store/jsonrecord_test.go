package store

import (
	"context"
	"errors"
	"testing"
)

// A JSON record reads back with its revision; an absent key is revision 0
// (the condition "still absent"); a record that is not JSON of the type is
// ErrCorrupt, never a half-filled value passed on as good.
func TestJSONRecordsRoundTrip(t *testing.T) {
	s, _ := openT(t, Options{})
	ctx := context.Background()
	type rec struct{ Name string }
	var got rec
	if rev, err := GetJSON(ctx, s, "r/absent", &got); rev != 0 || err != nil {
		t.Fatalf("absent key: rev %d, %v", rev, err)
	}
	op, err := PutJSON("r/one", rec{Name: "Spica"})
	if err != nil {
		t.Fatal(err)
	}
	wrote := mustTxn(t, s, nil, op)
	if rev, err := GetJSON(ctx, s, "r/one", &got); rev != wrote || err != nil || got.Name != "Spica" {
		t.Fatalf("read back %+v at rev %d (wrote %d): %v", got, rev, wrote, err)
	}
	mustTxn(t, s, nil, Put("r/bad", []byte("not json")))
	if _, err := GetJSON(ctx, s, "r/bad", &got); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a record that is not JSON: %v, want ErrCorrupt", err)
	}
}
