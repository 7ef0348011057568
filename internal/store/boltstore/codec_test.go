package boltstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/klauspost/compress/s2"
	bolt "go.etcd.io/bbolt"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// incompressible is n bytes no dictionary shortens (a fixed seed: the same
// bytes on every run), for tests that need a value to take the room its
// length says.
func incompressible(n int) []byte {
	b := make([]byte, n)
	r := rand.NewChaCha8([32]byte{'v', 'i', 'r', 'g', 'o'})
	_, _ = r.Read(b)
	return b
}

// confirmationValue is a confirmation record the size and shape of the
// hub's, which the store keeps compressed.
func confirmationValue(i int) []byte {
	return fmt.Appendf(nil, `{"id":"c-%04d","persona_id":"p-%03d","address":"w%d/p%d/lead","class":"relay","tool":"send_message","summary":"relay a message to w%d/p%d/deputy about the release plan","state":"pending","requested_at":"2026-11-%02dT10:%02d:00Z","stamp_hash":"sha256:%064x"}`,
		i, i, i%4, i, i%4, i, 1+i%28, i%60, i*7919)
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

// storedCodec is the codec byte of key's record as it lies in the file.
func storedCodec(t *testing.T, path, key string) byte {
	t.Helper()
	var codec byte
	rawView(t, path, func(tx *bolt.Tx) error {
		raw := tx.Bucket(bucketKV).Get([]byte(key))
		if raw == nil {
			return fmt.Errorf("%s is not in the file", key)
		}
		codec = codecOf(raw)
		return checkRecord([]byte(key), raw)
	})
	return codec
}

// Every value reads back as it was written, whichever way it was stored:
// a record the size of the hub's compressed, random bytes, a value below
// minCompressed and an empty one as written.
func TestValuesReadBackAsWritten(t *testing.T) {
	ctx := context.Background()
	b, path := openT(t, Options{})
	conf := confirmationValue(3)
	values := []struct {
		key   string
		value []byte
		codec byte
	}{
		{"confirmation/c-0003", conf, codecS2DictV1},
		{"blob", incompressible(4000), codecRaw},
		{"small", []byte(`{"n":1}`), codecRaw},
		{"empty", []byte{}, codecRaw},
		{"repeat", bytes.Repeat([]byte("virgo "), 20_000), codecS2DictV1},
	}
	var ops []store.Op
	for _, v := range values {
		ops = append(ops, store.Put(v.key, v.value))
	}
	rev := mustTxn(t, b, nil, ops...)
	for _, v := range values {
		kv, err := b.Get(ctx, v.key)
		if err != nil || !bytes.Equal(kv.Value, v.value) || kv.CreateRev != rev || kv.ModRev != rev {
			t.Fatalf("%s: %d bytes at %d/%d, %v; want the %d written at %d", v.key, len(kv.Value), kv.CreateRev, kv.ModRev, err, len(v.value), rev)
		}
	}
	// A rewrite keeps the creation revision under the codec byte.
	rev2 := mustTxn(t, b, nil, store.Put("confirmation/c-0003", append(conf[:len(conf):len(conf)], ' ')))
	if kv, err := b.Get(ctx, "confirmation/c-0003"); err != nil || kv.CreateRev != rev || kv.ModRev != rev2 {
		t.Fatalf("rewritten: %d/%d, %v; want %d/%d", kv.CreateRev, kv.ModRev, err, rev, rev2)
	}
	if problems, err := b.Check(ctx); err != nil || len(problems) > 0 {
		t.Fatalf("check: %v, %v", problems, err)
	}
	b.Close()
	for _, v := range values {
		if got := storedCodec(t, path, v.key); got != v.codec {
			t.Errorf("%s is stored with codec %d, want %d", v.key, got, v.codec)
		}
	}
}

// craft replaces key's record in the closed file at path with one whose
// checksum holds over the given codec and body: what a program other than
// virgo-tui (or a bug) could leave behind.
func craft(t *testing.T, path, key string, codec byte, body []byte) {
	t.Helper()
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		kv := tx.Bucket(bucketKV)
		old := kv.Get([]byte(key))
		rec := make([]byte, recordHeader+len(body))
		binary.BigEndian.PutUint64(rec[sumSize:], uint64(createRevOf(old))|uint64(codec)<<56)
		binary.BigEndian.PutUint64(rec[sumSize+8:], uint64(modRevOf(old)))
		copy(rec[recordHeader:], body)
		binary.BigEndian.PutUint32(rec, checksum([]byte(key), rec[sumSize:]))
		return kv.Put([]byte(key), rec)
	})
}

// A record whose checksum holds but whose value cannot be expanded is
// ErrRecordDamaged naming its key, for a read, a list and the check alike;
// nothing panics, nothing allocates what the block claims, and its
// neighbours read.
func TestUnexpandableRecordsAreDamaged(t *testing.T) {
	ctx := context.Background()
	huge := binary.AppendUvarint(nil, 1<<30) // a length far past MaxTxnBytes
	cases := []struct {
		name  string
		codec byte
		body  []byte
		says  string
	}{
		{"garbage", codecS2DictV1, []byte("\x20this is not an s2 block at all, only text"), "does not expand"},
		{"no length", codecS2DictV1, []byte{0xff, 0xff}, "has no length"},
		{"huge", codecS2DictV1, append(huge, 0, 0, 0), "claims 1073741824 bytes"},
		{"unknown codec", 7, []byte(`{"id":"c-0001"}`), "codec 7"},
		{"empty", codecS2DictV1, nil, "has no length"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, path := openT(t, Options{})
			ops := []store.Op{store.Put("confirmation/c-0000", confirmationValue(0)), store.Put("neighbour", []byte("intact"))}
			mustTxn(t, b, nil, ops...)
			b.Close()
			craft(t, path, "confirmation/c-0000", c.codec, c.body)
			b, err := Open(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			_, err = b.Get(ctx, "confirmation/c-0000")
			if !errors.Is(err, store.ErrRecordDamaged) || !strings.Contains(err.Error(), "confirmation/c-0000") || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("get: %v; want store.ErrRecordDamaged naming the key and saying %q", err, c.says)
			}
			if _, err := b.List(ctx, "confirmation/"); !errors.Is(err, store.ErrRecordDamaged) {
				t.Fatalf("list: %v", err)
			}
			if kv, err := b.Get(ctx, "neighbour"); err != nil || string(kv.Value) != "intact" {
				t.Fatalf("neighbour: %q, %v", kv.Value, err)
			}
			problems, err := b.Check(ctx)
			if err != nil || len(problems) != 1 || !strings.Contains(problems[0].Error(), "confirmation/c-0000") {
				t.Fatalf("check: %v, %v; want the one record", problems, err)
			}
		})
	}
}

// "Nothing panics on bad input": expandValue on any bytes returns a value
// or ErrRecordDamaged, and never more than a transaction may write.
func FuzzExpandValue(f *testing.F) {
	f.Add(byte(1), valueDictV1.Encode(nil, confirmationValue(1)))
	f.Add(byte(1), []byte{0x80, 0x80, 0x80, 0x80, 0x01, 0x00})
	f.Add(byte(0), []byte("as written"))
	f.Add(byte(2), []byte{})
	f.Fuzz(func(t *testing.T, codec byte, body []byte) {
		v, err := expandValue([]byte("k"), codec, body)
		switch {
		case err != nil && !errors.Is(err, store.ErrRecordDamaged):
			t.Fatalf("error %v is not ErrRecordDamaged", err)
		case err == nil && len(v) > store.MaxTxnBytes:
			t.Fatalf("expanded to %d bytes", len(v))
		}
	})
}

// The dictionary is frozen: records compressed against it by any earlier
// build expand to what was written. The golden block was made with the
// dictionary this build embeds; if this fails, a changed dictionary or
// decoder would misread every installation's records.
func TestValueDictionaryIsFrozen(t *testing.T) {
	const digest = "d82f679755e8ba9d77baf4b07c3ccb11387bd991722b23aa5aaf002771af6ec2"
	if sum := sha256.Sum256(s2DictV1); hex.EncodeToString(sum[:]) != digest {
		t.Fatalf("dict/s2-v1.dict is not the shipped dictionary %s: it was edited", digest)
	}
	golden, err := os.ReadFile("testdata/codec-s2-v1.bin")
	if err != nil {
		t.Fatal(err)
	}
	want := confirmationValue(7)
	got, err := expandValue([]byte("confirmation/c-0007"), codecS2DictV1, golden)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("the golden block expands to %q, %v; want %q", got, err, want)
	}
	// The block leans on the dictionary: without it, it does not expand.
	if plain, err := s2.Decode(nil, golden); err == nil && bytes.Equal(plain, want) {
		t.Fatal("the golden block does not use the dictionary; it freezes nothing")
	}
	if plain := s2.Encode(nil, want); len(golden) >= len(plain) {
		t.Fatalf("the golden block is %d bytes, %d without the dictionary: it freezes nothing", len(golden), len(plain))
	}
}
