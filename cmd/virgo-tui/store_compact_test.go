package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
)

// The issue: "the database never shrinks". Records deleted (as the
// retention sweep deletes them) leave the file its size; store compact,
// with no hub running, returns the space, and everything kept is still
// there: store check finds the file intact and the persona still lists.
// While a hub or another opener holds the file, compact is refused,
// naming it, and changes nothing.
func TestStoreCompactReturnsTheSpace(t *testing.T) {
	c := newCLI(t)
	c.add("--scope", "root", "--role", "secretary", "--name", "Spica")
	home, err := registry.CreateHome(c.home)
	mustNil(t, err)
	db := home.DBPath()

	s, err := boltstore.Open(db, boltstore.Options{})
	mustNil(t, err)
	ctx := context.Background()
	var puts, deletes []store.Op
	for i := range 2000 {
		key := fmt.Sprintf("chan/file/human:henry/h-%d", i)
		value := make([]byte, 8<<10) // incompressible, as files mostly are
		_, _ = rand.Read(value)
		puts = append(puts, store.Put(key, value))
		deletes = append(deletes, store.Op{Key: key, Delete: true})
	}
	_, err = store.WriteAll(ctx, s, puts)
	mustNil(t, err)
	_, err = store.WriteAll(ctx, s, deletes)
	mustNil(t, err)
	wantContains(t, "compact while another opener holds the file", c.fails("store", "compact"), db, "held by another virgo-tui")
	mustNil(t, s.Close())

	before := fileSize(t, db)
	wantContains(t, "compact", c.ok("store", "compact"), db, "checked")
	after := fileSize(t, db)
	t.Logf("%s: %d bytes before compact, %d after", db, before, after)
	if before < 16<<20 || after > before/8 {
		t.Fatalf("compact took %s from %d to %d bytes", db, before, after)
	}
	wantContains(t, "check after compact", c.ok("store", "check"), "intact")
	wantContains(t, "persona list after compact", c.ok("persona", "list"), "Spica")

	serveHub(t, c)
	wantContains(t, "compact under a running hub", c.fails("store", "compact"), "a hub holds the database", db, "stop it")
	if got := fileSize(t, db); got != after {
		t.Fatalf("a refused compact changed the file: %d bytes, was %d", got, after)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	mustNil(t, err)
	return fi.Size()
}
