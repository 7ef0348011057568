package pager

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/paging"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
)

func open(t *testing.T) store.Store {
	t.Helper()
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "virgo.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func str(kv store.KV) (string, bool, error) { return string(kv.Value), true, nil }

// TestPagesWalkTheWholeList: following next from the first page reads
// every item of the list once, and nothing of a neighbouring list.
func TestPagesWalkTheWholeList(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	var ops []store.Op
	for i := range 120 {
		ops = append(ops, store.Put(fmt.Sprintf("tasks/a/%04d", i), []byte(fmt.Sprint(i))))
	}
	ops = append(ops, store.Put("tasks/b/0000", []byte("other")), store.Put("tasks/a", []byte("bare")))
	if _, err := st.Txn(ctx, nil, ops); err != nil {
		t.Fatal(err)
	}
	var got []string
	token := ""
	for pages := 1; ; pages++ {
		p, err := Read(ctx, st, "tasks/a/", token, 50, str)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p.Items...)
		if p.Next == "" {
			if pages != 3 {
				t.Fatalf("%d pages, want 3", pages)
			}
			break
		}
		token = p.Next
	}
	if len(got) != 120 || got[0] != "0" || got[119] != "119" {
		t.Fatalf("%d items: %v", len(got), got)
	}
}

// TestHostileTokensStayInTheList: a token cannot move a page outside its
// list's prefix; a malformed one is ErrBadToken; a page size out of range
// is ErrBadLimit.
func TestHostileTokensStayInTheList(t *testing.T) {
	ctx := context.Background()
	st := open(t)
	if _, err := st.Txn(ctx, nil, []store.Op{store.Put("tasks/a/1", []byte("mine")), store.Put("tasks/b/1", []byte("theirs")),
		store.Put("secrets/x", []byte("secret"))}); err != nil {
		t.Fatal(err)
	}
	// Tokens crafted to name keys of another list: read under this list's
	// prefix they only name positions within it.
	for _, crafted := range []string{"../b/0", "\x00", "/../../secrets/", "zzzz"} {
		tok := base64.RawURLEncoding.EncodeToString([]byte(crafted))
		p, err := Read(ctx, st, "tasks/a/", tok, 10, str)
		if err != nil && !errors.Is(err, paging.ErrBadToken) {
			t.Fatalf("token for %q: %v", crafted, err)
		}
		for _, item := range p.Items {
			if item != "mine" {
				t.Fatalf("token for %q read %q outside the list", crafted, item)
			}
		}
	}
	for _, bad := range []string{"!!", "a b", "%2e%2e", strings.Repeat("A", paging.MaxToken+1), base64.RawURLEncoding.EncodeToString([]byte("a\x1bb"))} {
		if _, err := Read(ctx, st, "tasks/a/", bad, 10, str); !errors.Is(err, paging.ErrBadToken) {
			t.Errorf("token %.20q: %v, want paging.ErrBadToken", bad, err)
		}
	}
	for _, n := range []int{-1, paging.MaxLimit + 1} {
		if _, err := Read(ctx, st, "tasks/a/", "", n, str); !errors.Is(err, paging.ErrBadLimit) {
			t.Errorf("limit %d: %v, want paging.ErrBadLimit", n, err)
		}
	}
	if p, err := Read(ctx, st, "tasks/a/", "", 0, str); err != nil || len(p.Items) != 1 || p.Next != "" {
		t.Errorf("default limit: %+v, %v", p, err)
	}
}
