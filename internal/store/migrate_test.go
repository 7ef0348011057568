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

// schema2Writes are the transactions that made testdata/schema2.db, a
// database written by virgo-tui with schema version 2 (records with
// checksums, values stored as written): confirmations and audit entries
// the size of the hub's, which version 3 stores compressed, and small
// counters it stores as written.
func schema2Writes() [][]Op {
	var txns [][]Op
	for i := 0; i < 40; i++ {
		id := fmt.Sprintf("c-%04d", i)
		conf := fmt.Sprintf(`{"id":%q,"persona_id":"p-%03d","address":"w%d/p%d/lead","class":"relay","tool":"send_message","summary":"relay a message to w%d/p%d/deputy about the release plan","state":"pending","requested_at":"2026-11-%02dT10:%02d:00Z","stamp_hash":"sha256:%064x"}`, id, i, i%4, i, i%4, i, 1+i%28, i%60, i*7919)
		ops := []Op{Put("confirmation/"+id, []byte(conf))}
		ops = append(ops, Put(fmt.Sprintf("audit/%020d", i), []byte(fmt.Sprintf(`{"at":"2026-11-%02dT10:%02d:00Z","actor":"p-%03d","action":"request_confirmation","target":%q,"detail":"the persona asked to relay a message outside its project"}`, 1+i%28, i%60, i, id))))
		if i%6 == 5 {
			ops = append(ops, Op{Key: fmt.Sprintf("confirmation/c-%04d", i-5), Delete: true})
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
	path := copyTestdata(t, "schema1.db")
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
	if v := fileSchema(t, path); v != SchemaVersion {
		t.Errorf("schema version %d after migration, want %d", v, SchemaVersion)
	}
}

// A version 1 file with a malformed record is refused, naming the record,
// and left as it was: the migration is one transaction.
func TestMigrateSchema1RefusesMalformed(t *testing.T) {
	path := copyTestdata(t, "schema1.db")
	rawUpdate(t, path, func(tx *bolt.Tx) error { return tx.Bucket(bucketKV).Put([]byte("persona/059"), []byte("short")) })
	before, _ := os.ReadFile(path)
	_, err := OpenBolt(path, Options{})
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "persona/059") || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("open: %v, want ErrCorrupt naming the record", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("a refused migration changed the file")
	}
}

// "Existing databases must keep working": a file written by the virgo-tui
// of schema version 2 opens, reads every record as it was written, is
// checked whole, and takes compression for the records written after.
func TestMigrateSchema2(t *testing.T) {
	ctx := context.Background()
	path := copyTestdata(t, "schema2.db")
	want := map[string][]byte{}
	for _, ops := range schema2Writes() {
		for _, op := range ops {
			if op.Delete {
				delete(want, op.Key)
			} else {
				want[op.Key] = op.Value
			}
		}
	}
	if problems, err := CheckFile(path, 0); err != nil || len(problems) > 0 {
		t.Fatalf("check of the version 2 file: %v, %v", problems, err)
	}
	// Checked whole, not only its pages: a changed byte in a record's value
	// is found.
	damaged := copyTestdata(t, "schema2.db")
	data, err := os.ReadFile(damaged)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(data, []byte(`"persona_id":"p-038"`))
	if at < 0 {
		t.Fatal("confirmation c-0038 is not in testdata/schema2.db")
	}
	data[at+len(`"persona_id":"p-0`)] ^= 0x01 // p-038 reads p-028
	if err := os.WriteFile(damaged, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if problems, err := CheckFile(damaged, 0); err != nil || len(problems) != 1 || !strings.Contains(problems[0].Error(), "confirmation/c-0038") {
		t.Fatalf("check of a damaged version 2 file: %v, %v; want the one record", problems, err)
	}
	b, err := OpenBolt(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	list, err := b.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != len(want) {
		t.Fatalf("%d keys after migration, want %d", len(list), len(want))
	}
	for _, kv := range list {
		if !bytes.Equal(kv.Value, want[kv.Key]) {
			t.Fatalf("%s reads %q, want %q", kv.Key, kv.Value, want[kv.Key])
		}
	}
	mustTxn(t, b, nil, Put("confirmation/c-0039", want["confirmation/c-0039"]))
	b.Close()
	if c := storedCodec(t, path, "confirmation/c-0038"); c != codecRaw {
		t.Errorf("an untouched version 2 record was rewritten (codec %d)", c)
	}
	if c := storedCodec(t, path, "confirmation/c-0039"); c != codecS2DictV1 {
		t.Errorf("a record written after the migration has codec %d, want it compressed", c)
	}
	if v := fileSchema(t, path); v != SchemaVersion {
		t.Errorf("schema version %d after migration, want %d", v, SchemaVersion)
	}
}

// copyTestdata copies testdata/name into a test directory: a file the test
// may migrate or damage.
func copyTestdata(t *testing.T, name string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "virgo.db")
	if err := os.WriteFile(path, src, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// rawView reads the closed file at path with bbolt alone, as it lies.
func rawView(t *testing.T, path string, f func(*bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.View(f); err != nil {
		t.Fatal(err)
	}
}

// fileSchema is the schema version written in the closed file at path.
func fileSchema(t *testing.T, path string) int64 {
	t.Helper()
	var v int64
	rawView(t, path, func(tx *bolt.Tx) error {
		var err error
		v, err = getSchema(tx.Bucket(bucketMeta))
		return err
	})
	return v
}
