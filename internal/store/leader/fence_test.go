package leader

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
)

// The fence itself, without the watch that usually ends a term first: a
// job paused while its leader key moved (SIGSTOP, a long GC) wakes with a
// term it believes live, and its write is refused by the store's own
// condition, naming the key; the term is then over.
func TestFenceRefusesAWriteTheWatchDidNotSee(t *testing.T) {
	ctx := context.Background()
	s, err := boltstore.Open(filepath.Join(t.TempDir(), "virgo.db"), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	key := Prefix + "jobs/694d"
	rev, err := s.Txn(ctx, nil, []store.Op{store.Put(key, []byte("hub-a"))})
	if err != nil {
		t.Fatal(err)
	}
	term := newTerm(store.Cond{Key: key, ModRev: rev}, nil, nil)
	job := term.Store(s)
	if _, err := job.Txn(ctx, nil, []store.Op{store.Put("swept/1", nil)}); err != nil {
		t.Fatalf("a write while the leader key stands: %v", err)
	}
	if _, err := s.Txn(ctx, nil, []store.Op{{Key: key, Delete: true}}); err != nil {
		t.Fatal(err)
	}
	_, err = job.Txn(ctx, nil, []store.Op{store.Put("swept/2", nil)})
	if !errors.Is(err, ErrNotLeader) || !errors.Is(err, store.ErrConflict) || !strings.Contains(err.Error(), key) {
		t.Fatalf("a write after the leader key went: %v; want ErrNotLeader and ErrConflict naming %q", err, key)
	}
	if _, err := s.Get(ctx, "swept/2"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the refused write is in the store: %v", err)
	}
	select {
	case <-term.Done():
	default:
		t.Fatal("the term is not over after the store refused its fence")
	}
}
