package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/registry/roster"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
)

// storedRecord is the first record under prefix as it lies in the bbolt
// file at path (docs/store.md, *Layout*): the bytes a test flips to damage
// it, compressed or not.
func storedRecord(t *testing.T, path, prefix string) []byte {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var rec []byte
	db.View(func(tx *bolt.Tx) error {
		if k, v := tx.Bucket([]byte("virgo.kv")).Cursor().Seek([]byte(prefix)); k != nil && bytes.HasPrefix(k, []byte(prefix)) {
			rec = append(rec, v...)
		}
		return nil
	})
	if rec == nil {
		t.Fatalf("no record under %s in %s", prefix, path)
	}
	return rec
}

// With no hub running, store check and store backup read the file itself;
// a flipped bit in a record makes check list it and exit 1, and the
// commands that read it fail instead of answering with changed data.
func TestStoreCheckAndBackupWithoutAHub(t *testing.T) {
	c := newCLI(t)
	c.add("--scope", "root", "--role", "secretary", "--name", "Spica")
	home, _ := registry.CreateHome(c.home)
	wantContains(t, "check of an intact database", c.ok("store", "check"), home.DBPath(), "intact")
	copyPath := filepath.Join(c.home, "copy.db")
	wantContains(t, "backup", c.ok("store", "backup", copyPath), copyPath, "checked")
	if problems, err := boltstore.CheckFile(copyPath, 0); err != nil || len(problems) != 0 {
		t.Fatalf("the backup: %v, %v", problems, err)
	}
	wantContains(t, "a second backup to the same file", c.fails("store", "backup", copyPath), "exists")

	rec := storedRecord(t, home.DBPath(), "persona/")
	data, err := os.ReadFile(home.DBPath())
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(data, rec)
	if at < 0 {
		t.Fatal("the persona's record is not in the file")
	}
	data[at+len(rec)-1] ^= 0x20 // a bit of its value: the checksum no longer holds
	if err := os.WriteFile(home.DBPath(), data, 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := c.run("store", "check")
	if code != 1 {
		t.Fatalf("store check of a damaged database: exit %d, %s %s", code, out, errOut)
	}
	wantContains(t, "store check's list", out, "record damaged: persona/")
	wantContains(t, "store check's error", errOut, "damaged", "store backup")
	wantContains(t, "persona list over the damaged record", c.fails("persona", "list"), "record damaged: persona/")
	// A command that needs a hub cannot start one over it either: the
	// hub's start reads every persona.
	wantContains(t, "a hub start over the damaged record", c.fails("confirm", "list"), "record damaged: persona/")
	wantContains(t, "backup of a damaged database", c.fails("store", "backup", filepath.Join(c.home, "bad.db")), "record damaged")
	if _, err := os.Stat(filepath.Join(c.home, "bad.db")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a backup that failed its check left a file: %v", err)
	}
}

// With a hub running (holding the file), both go through it: the copy is a
// consistent snapshot, checked before success is reported.
func TestStoreBackupThroughARunningHub(t *testing.T) {
	c := newCLI(t)
	serveHub(t, c)
	c.add("--scope", "root", "--role", "secretary", "--name", "Spica")
	wantContains(t, "check through the hub", c.ok("store", "check", "-o", "json"), `"problems": []`)
	copyPath := filepath.Join(c.home, "copy.db")
	wantContains(t, "backup through the hub", c.ok("store", "backup", copyPath), "checked")
	s, err := boltstore.Open(copyPath, boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if ps, err := roster.New(s, registry.Home{Dir: c.home}).List(context.Background(), roster.ListOptions{All: true}); err != nil || len(ps) != 1 {
		t.Fatalf("the backup lists %d personas, %v", len(ps), err)
	}
}

// --store names the store of every command that opens one: a bad name is
// refused naming the forms, and check and backup, which read a bbolt file,
// refuse an etcd store pointing at etcd's own tools.
func TestStoreFlagNamesTheStore(t *testing.T) {
	c := newCLI(t)
	wantContains(t, "a bad store name", c.fails("--store", "postgres://db/virgo", "persona", "list"), "bad store name", "bolt:PATH", "etcd://")
	wantContains(t, "check of an etcd store", c.fails("--store", "etcd://127.0.0.1:2379/virgo", "store", "check"), "not a bbolt file", "etcdctl")
	t.Setenv("VIRGO_STORE", "etcd://127.0.0.1:2379/virgo")
	wantContains(t, "backup of an etcd store named by $VIRGO_STORE", c.fails("store", "backup", filepath.Join(c.home, "b.db")), "not a bbolt file", "snapshot save")
}
