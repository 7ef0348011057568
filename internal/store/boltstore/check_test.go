package boltstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// damagedStore writes 50 confirmations, flips one bit inside the data of
// two of them on the disk, and reopens the store.
func damagedStore(t *testing.T) (*Store, string) {
	t.Helper()
	b, path := openT(t, Options{})
	var ops []store.Op
	for i := 0; i < 50; i++ {
		ops = append(ops, store.Put(fmt.Sprintf("confirmation/c-%03d", i), []byte(fmt.Sprintf(`{"persona_id":"p-%03d","state":"pending"}`, i))))
	}
	mustTxn(t, b, nil, ops...)
	b.Close()
	return flipAndReopen(t, path, `"p-007"`, `"p-031"`), path
}

// flipAndReopen flips one bit inside the data of each victim, a string
// found in the closed store's file at path, and reopens the store.
func flipAndReopen(t *testing.T, path string, victims ...string) *Store {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, victim := range victims {
		at := bytes.Index(data, []byte(victim))
		if at < 0 {
			t.Fatalf("%s not found in the file", victim)
		}
		data[at+2] ^= 0x04 // "p-007" reads "p)007": still valid JSON, changed data
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("the page structure is intact, the open should pass: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// "A flipped bit is reported with its key (record damaged: confirmation/c-…)
// and the command fails instead of answering with changed data."
func TestFlippedRecordReportedWithItsKey(t *testing.T) {
	ctx := context.Background()
	b, _ := damagedStore(t)
	_, err := b.Get(ctx, "confirmation/c-007")
	if !errors.Is(err, store.ErrRecordDamaged) || !strings.Contains(err.Error(), "record damaged: confirmation/c-007") {
		t.Fatalf("get of the damaged record: %v", err)
	}
	if kv, err := b.Get(ctx, "confirmation/c-008"); err != nil || !strings.Contains(string(kv.Value), "p-008") {
		t.Fatalf("an intact neighbour: %+v, %v", kv, err)
	}
	if _, err := b.List(ctx, "confirmation/"); !errors.Is(err, store.ErrRecordDamaged) {
		t.Fatalf("list over the damaged record: %v", err)
	}
	// A write that reads the damaged record (for its revisions) fails; one
	// committed in the same group beside it does not.
	errs := make(chan error, 2)
	for _, key := range []string{"confirmation/c-031", "confirmation/c-032"} {
		go func() {
			_, err := b.Txn(ctx, []store.Cond{{Key: key, ModRev: 1}}, []store.Op{store.Put(key, []byte("decided"))})
			errs <- err
		}()
	}
	var damagedN, ok int
	for range 2 {
		switch err := <-errs; {
		case err == nil:
			ok++
		case errors.Is(err, store.ErrRecordDamaged) && strings.Contains(err.Error(), "c-031"):
			damagedN++
		default:
			t.Fatalf("txn: %v", err)
		}
	}
	if damagedN != 1 || ok != 1 {
		t.Fatalf("%d damaged, %d ok; want one of each", damagedN, ok)
	}
	problems, err := b.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range problems {
		got = append(got, p.Error())
	}
	if len(problems) != 2 || !strings.Contains(got[0], "confirmation/c-007") || !strings.Contains(got[1], "confirmation/c-031") {
		t.Fatalf("check found %q; want the two damaged records", got)
	}
}

// A watcher that meets a damaged record fails with its key instead of
// delivering changed data.
func TestWatchReportsDamagedRecord(t *testing.T) {
	b, _ := damagedStore(t)
	_, err := b.Watch(context.Background(), "confirmation/", 0)
	if !errors.Is(err, store.ErrRecordDamaged) || !strings.Contains(err.Error(), "confirmation/c-007") {
		t.Fatalf("watch: %v", err)
	}
}

func TestCheckFileAndBackup(t *testing.T) {
	ctx := context.Background()
	b, path := openT(t, Options{})
	for i := 0; i < 300; i++ {
		mustTxn(t, b, nil, store.Put(fmt.Sprintf("persona/%04d", i), bytes.Repeat([]byte{'x'}, 200)))
	}
	copyPath := filepath.Join(t.TempDir(), "backup.db")
	// A writer goes on while the copy is made: the copy is one snapshot.
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 50; i++ {
			b.Txn(ctx, nil, []store.Op{store.Put(fmt.Sprintf("live/%d", i), nil)})
		}
	}()
	n, err := WriteBackup(copyPath, b.WriteTo)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(copyPath); err != nil || fi.Size() != n || fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup %v (%d bytes reported), %v", fi, n, err)
	}
	if _, err := WriteBackup(copyPath, b.WriteTo); !errors.Is(err, ErrBackupExists) {
		t.Fatalf("a second backup to the same name: %v, want ErrBackupExists", err)
	}
	if problems, err := CheckFile(copyPath, 0); err != nil || len(problems) != 0 {
		t.Fatalf("check of the backup: %v, %v", problems, err)
	}
	c, err := Open(copyPath, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if list, err := c.List(ctx, "persona/"); err != nil || len(list) != 300 {
		t.Fatalf("the backup holds %d personas, %v", len(list), err)
	}
	if _, err := CheckFile(path, 0); !errors.Is(err, store.ErrLocked) {
		t.Fatalf("check of a file a writer holds: %v, want ErrLocked", err)
	}
}

// A list long enough to be checked a share per processor still fails on
// damage, and names the first damaged record in key order, whichever share
// met it.
func TestALargeListNamesItsFirstDamagedRecord(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	b, path := openT(t, Options{})
	const n = 4 * minDecodeShare
	var ops []store.Op
	for i := range n {
		ops = append(ops, store.Put(fmt.Sprintf("confirmation/c-%04d", i), []byte(fmt.Sprintf(`{"persona_id":"p-%04d","state":"pending"}`, i))))
	}
	ctx := context.Background()
	if _, err := store.WriteAll(ctx, b, ops); err != nil {
		t.Fatal(err)
	}
	if kvs, err := b.List(ctx, "confirmation/"); err != nil || len(kvs) != n || string(kvs[n-1].Value) != fmt.Sprintf(`{"persona_id":"p-%04d","state":"pending"}`, n-1) {
		t.Fatalf("intact list: %d records, %v", len(kvs), err)
	}
	b.Close()
	b = flipAndReopen(t, path, `"p-0300"`, `"p-1500"`)
	_, err := b.List(ctx, "confirmation/")
	if !errors.Is(err, store.ErrRecordDamaged) || !strings.Contains(err.Error(), "confirmation/c-0300") {
		t.Fatalf("list over two damaged records: %v; want c-0300 named", err)
	}
}
