package store

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// TestRangePagesAPrefix: pages of a prefix in key order, each at most the
// limit, more until the last; nothing outside the prefix, whatever after
// says; a page never repeats a key even when keys are written between pages.
func TestRangePagesAPrefix(t *testing.T) {
	ctx := context.Background()
	b, _ := openT(t, Options{})
	var ops []Op
	for i := range 25 {
		ops = append(ops, Put(fmt.Sprintf("m/%03d", i), []byte("v")))
	}
	mustTxn(t, b, nil, append(ops, Put("l/z", []byte("before")), Put("n/a", []byte("after")), Put("m", []byte("bare")))...)

	var got []string
	after := ""
	for pages := 0; ; pages++ {
		kvs, more, err := b.Range(ctx, "m/", after, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(kvs) > 10 || pages > 3 {
			t.Fatalf("page %d: %d keys", pages, len(kvs))
		}
		for _, kv := range kvs {
			got = append(got, kv.Key)
		}
		if pages == 0 {
			// a write behind the cursor and one ahead of it, between pages
			mustTxn(t, b, nil, Put("m/000a", []byte("late")), Put("m/999", []byte("late")))
		}
		if !more {
			break
		}
		after = kvs[len(kvs)-1].Key
	}
	if len(got) != 26 || got[0] != "m/000" || got[25] != "m/999" {
		t.Fatalf("paged %d keys %v", len(got), got)
	}
	seen := map[string]bool{}
	for _, k := range got {
		if seen[k] {
			t.Fatalf("key %s twice", k)
		}
		seen[k] = true
	}

	for _, c := range []struct {
		after string
		first string
		n     int
	}{
		{"", "m/000", 10},
		{"l/zzz", "m/000", 10}, // before the prefix: from its start
		{"a", "m/000", 10},
		{"n/", "", 0}, // past the prefix: empty, never the next prefix's keys
		{"zzz", "", 0},
		{"m/998", "m/999", 1},
		{"m/999", "", 0},
	} {
		kvs, more, err := b.Range(ctx, "m/", c.after, 10)
		if err != nil || len(kvs) != c.n || c.n > 0 && kvs[0].Key != c.first {
			t.Errorf("after %q: %d keys %v more %v, %v; want %d from %q", c.after, len(kvs), kvs, more, err, c.n, c.first)
		}
		for _, kv := range kvs {
			if kv.Key[:2] != "m/" {
				t.Errorf("after %q: %s is outside the prefix", c.after, kv.Key)
			}
		}
	}
	if kvs, more, err := b.Range(ctx, "m/", "m/023", 2); err != nil || len(kvs) != 2 || more {
		t.Errorf("exact last page: %d keys, more %v, %v", len(kvs), more, err)
	}
	if _, _, err := b.Range(ctx, "m/", "", 0); !errors.Is(err, ErrInvalidOp) {
		t.Errorf("limit 0: %v, want ErrInvalidOp", err)
	}
	b.Close()
	if _, _, err := b.Range(ctx, "m/", "", 1); !errors.Is(err, ErrClosed) {
		t.Errorf("closed: %v, want ErrClosed", err)
	}
}
