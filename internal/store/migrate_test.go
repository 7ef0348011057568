package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// schema1Writes are the transactions that made testdata/schema1.db, a
// database written by virgo-tui with schema version 1 (bbolt v1.4.3, before
// records carried checksums), opened with WatchHistory 40 so that its change
// log was trimmed.
func schema1Writes() [][]Op {
	var txns [][]Op
	for i := 0; i < 60; i++ {
		ops := []Op{Put(fmt.Sprintf("persona/%03d", i), []byte(fmt.Sprintf(`{"id":%d,"name":"n%d"}`, i, i)))}
		if i%7 == 3 {
			ops = append(ops, Op{Key: fmt.Sprintf("persona/%03d", i-3), Delete: true})
		}
		if i%5 == 0 {
			ops = append(ops, Put("counter", []byte(fmt.Sprint(i))))
		}
		txns = append(txns, ops)
	}
	return txns
}

// "Existing databases (the current schema version) must keep working:
// migrate on open under the write lock in one transaction — nothing stored
// is lost."
func TestMigrateSchema1(t *testing.T) {
	ctx := context.Background()
	src, err := os.ReadFile("testdata/schema1.db")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "virgo.db")
	if err := os.WriteFile(path, src, 0o600); err != nil {
		t.Fatal(err)
	}
	want := map[string]KV{}
	for i, ops := range schema1Writes() {
		rev := int64(i + 1)
		for _, op := range ops {
			if op.Delete {
				delete(want, op.Key)
				continue
			}
			kv := KV{Key: op.Key, Value: op.Value, CreateRev: rev, ModRev: rev}
			if old, ok := want[op.Key]; ok {
				kv.CreateRev = old.CreateRev
			}
			want[op.Key] = kv
		}
	}
	for round := 0; round < 2; round++ { // migrated, then reopened as version 2
		b, err := OpenBolt(path, Options{WatchHistory: 40})
		if err != nil {
			t.Fatalf("open %d: %v", round, err)
		}
		list, err := b.List(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != len(want) {
			t.Fatalf("%d keys after migration, want %d", len(list), len(want))
		}
		for _, kv := range list {
			if w := want[kv.Key]; !bytes.Equal(kv.Value, w.Value) || kv.CreateRev != w.CreateRev || kv.ModRev != w.ModRev {
				t.Fatalf("%s: %+v, want %+v", kv.Key, kv, w)
			}
		}
		st, err := b.Stats()
		if err != nil {
			t.Fatal(err)
		}
		if st.Rev != 60+int64(round) || st.Compacted == 0 || st.LogEntries == 0 || st.LogBytes == 0 {
			t.Fatalf("stats after migration %+v", st)
		}
		wctx, cancel := context.WithCancel(ctx)
		ch, err := b.Watch(wctx, "", st.Compacted)
		if err != nil {
			t.Fatal(err)
		}
		if ev := next(t, ch); ev.Rev <= st.Compacted {
			t.Fatalf("first event %+v", ev)
		}
		cancel()
		for range ch {
		}
		rev := mustTxn(t, b, nil, Put("after", []byte("migration")))
		if rev != 61+int64(round) {
			t.Fatalf("revision after migration %d", rev)
		}
		want["after"] = KV{Key: "after", Value: []byte("migration"), CreateRev: 61, ModRev: rev}
		b.Close()
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.View(func(tx *bolt.Tx) error {
		if v, _ := getSchema(tx.Bucket(bucketMeta)); v != SchemaVersion {
			t.Errorf("schema version %d after migration", v)
		}
		return nil
	})
}

// A version 1 file with a malformed record is refused, naming the record,
// and left as it was: the migration is one transaction.
func TestMigrateSchema1RefusesMalformed(t *testing.T) {
	src, err := os.ReadFile("testdata/schema1.db")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "virgo.db")
	if err := os.WriteFile(path, src, 0o600); err != nil {
		t.Fatal(err)
	}
	rawUpdate(t, path, func(tx *bolt.Tx) error { return tx.Bucket(bucketKV).Put([]byte("persona/059"), []byte("short")) })
	before, _ := os.ReadFile(path)
	_, err = OpenBolt(path, Options{})
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "persona/059") || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("open: %v, want ErrCorrupt naming the record", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("a refused migration changed the file")
	}
}
