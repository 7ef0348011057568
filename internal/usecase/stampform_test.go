package usecase

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"runtime"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/flatedict"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// gzipped is b as a store written before the stamp dictionary holds it.
func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	mustNil(t, err)
	_, err = zw.Write(b)
	mustNil(t, err)
	mustNil(t, zw.Close())
	return buf.Bytes()
}

// A stamp is stored compressed against the stamp dictionary, a small part
// of its file, and read back to the file's own bytes, which its recorded
// hash is over.
func TestStampIsStoredCompressed(t *testing.T) {
	in := newInstallation(t)
	p := in.register(t, "work/core/deputy", "Spica")
	file, err := os.ReadFile(in.cases.localStampPath(p.ID))
	mustNil(t, err)
	kv, err := in.st.Get(context.Background(), StampPrefix+p.ID)
	mustNil(t, err)
	if kv.Value[0] != stampFormatV1 || len(kv.Value)*10 > len(file) {
		t.Fatalf("stored %d bytes of a %d-byte stamp, format %d (want format %d, under a tenth)", len(kv.Value), len(file), kv.Value[0], stampFormatV1)
	}
	b, err := unpackStamp(kv.Value)
	mustNil(t, err)
	mustNil(t, stamp.VerifyHash("stored", b, p.StampHash))
}

// The stamp dictionary is frozen: stamps stored against it are expanded
// with it for as long as they exist (one expanded against another
// dictionary would fail its hash). Its roles still fit this version's
// factory: a first stamp of every role is stored in a few hundred bytes.
// When that fails the factory has moved far from stamp-dict-v1.json —
// stamps are still read whole, only stored larger: add a dictionary 2 (a
// new format byte), never edit 1.
func TestStampDictionaryIsFrozen(t *testing.T) {
	const digest = "ac8be58dcf7b1a8a1e9fe20c27f841950e6fda28ab10abcd4965ce9183d63ad8"
	if sum := sha256.Sum256(stampDictV1); hex.EncodeToString(sum[:]) != digest {
		t.Fatalf("stamp-dict-v1.json is not the shipped dictionary %s: it was edited", digest)
	}
	in := newInstallation(t)
	for i, addr := range []string{"root/secretary", "work/coordinator", "work/core/lead", "work/core/deputy", "acme/payments/lead"} {
		p := in.register(t, addr, registry.ConstellationNames[i])
		kv, err := in.st.Get(context.Background(), StampPrefix+p.ID)
		mustNil(t, err)
		t.Logf("%s: stored in %d bytes", addr, len(kv.Value))
		if kv.Value[0] != stampFormatV1 || len(kv.Value) > 400 {
			t.Errorf("%s: its stamp is stored in %d bytes, format %d; want format %d, at most 400", addr, len(kv.Value), kv.Value[0], stampFormatV1)
		}
	}
}

// Stores written before the stamp dictionary hold gzip, and those before
// stamps were compressed the raw JSON: both are still read, and verified.
func TestOlderStoredStampFormsAreStillRead(t *testing.T) {
	for _, form := range []struct {
		name  string
		value func(t *testing.T, file []byte) []byte
	}{
		{"gzip", gzipped},
		{"raw", func(_ *testing.T, file []byte) []byte { return file }},
	} {
		t.Run(form.name, func(t *testing.T) {
			in := newInstallation(t)
			ctx := context.Background()
			p := in.register(t, "work/core/lead", "Spica")
			file, err := os.ReadFile(in.cases.localStampPath(p.ID))
			mustNil(t, err)
			_, err = in.st.Txn(ctx, nil, []store.Op{store.Put(StampPrefix+p.ID, form.value(t, file))})
			mustNil(t, err)
			mustNil(t, os.Remove(in.cases.localStampPath(p.ID)))
			st, err := in.fresh().LoadStamp(ctx, p)
			if err != nil || st.Persona.ID != p.ID {
				t.Fatalf("a %s stored stamp: %v", form.name, err)
			}
		})
	}
}

// A stored value is hostile input, in either compressed form: one that does
// not expand is a named error, one that expands to other bytes fails the
// stamp's checks, and one that expands past the stamp limit is refused
// after reading at most the limit + 1 bytes, never expanded whole (a bomb).
func TestDamagedOrOversizedStoredStampIsRefused(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	p := in.register(t, "work/core/lead", "Spica")
	kv, err := in.st.Get(ctx, StampPrefix+p.ID)
	mustNil(t, err)

	file, err := os.ReadFile(in.cases.localStampPath(p.ID))
	mustNil(t, err)
	zeros := make([]byte, 16<<20) // 16 MiB expanded, far past the limit; a few KiB stored
	bomb := gzipped(t, zeros)
	dictBomb := flatedict.New(stampFormatV1, stampDictV1, len(zeros)).Pack(zeros)
	old := gzipped(t, file)
	flipped := bytes.Clone(old)
	flipped[len(flipped)-6] ^= 0xff // the CRC-32 of the expanded bytes
	dictFlipped := bytes.Clone(kv.Value)
	dictFlipped[len(dictFlipped)/2] ^= 0x10 // raw DEFLATE has no checksum: the stamp's hash catches it

	for _, c := range []struct {
		name  string
		value []byte
		want  []error
	}{
		{"truncated", kv.Value[:len(kv.Value)/2], []error{ErrStoredStampDamaged, stamp.ErrInvalidStamp}},
		{"format only", []byte{stampFormatV1}, []error{ErrStoredStampDamaged, stamp.ErrInvalidStamp}},
		{"bomb", dictBomb, []error{stamp.ErrStampTooLarge}},
		{"gzip truncated", old[:len(old)/2], []error{ErrStoredStampDamaged, stamp.ErrInvalidStamp}},
		{"gzip checksum", flipped, []error{ErrStoredStampDamaged, stamp.ErrInvalidStamp}},
		{"gzip header only", gzipMagic, []error{ErrStoredStampDamaged, stamp.ErrInvalidStamp}},
		{"gzip bomb", bomb, []error{stamp.ErrStampTooLarge}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := in.st.Txn(ctx, nil, []store.Op{store.Put(StampPrefix+p.ID, c.value)})
			mustNil(t, err)
			_, err = in.fresh().LoadStamp(context.Background(), p)
			for _, want := range c.want {
				if !errors.Is(err, want) {
					t.Fatalf("LoadStamp = %v, want %v", err, want)
				}
			}
		})
	}
	// A flipped bit in a raw DEFLATE stream (which has no checksum) either
	// breaks the stream or expands to other bytes, which fail the hash.
	_, err = in.st.Txn(ctx, nil, []store.Op{store.Put(StampPrefix+p.ID, dictFlipped)})
	mustNil(t, err)
	if _, err = in.fresh().LoadStamp(ctx, p); !errors.Is(err, stamp.ErrInvalidStamp) && !errors.Is(err, stamp.ErrHashMismatch) {
		t.Fatalf("a flipped bit: LoadStamp = %v, want an invalid stamp or a hash mismatch", err)
	}
}

// Expanding a stored value allocates about the stamp limit, not what the
// value would expand to.
func TestUnpackStampReadsAtMostTheLimit(t *testing.T) {
	var bomb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&bomb, gzip.BestCompression)
	zeros := make([]byte, 1<<20)
	for i := 0; i < 64; i++ { // 64 MiB expanded
		_, err := zw.Write(zeros)
		mustNil(t, err)
	}
	mustNil(t, zw.Close())
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := unpackStamp(bomb.Bytes())
	runtime.ReadMemStats(&after)
	if !errors.Is(err, stamp.ErrStampTooLarge) {
		t.Fatalf("unpackStamp of a 64 MiB bomb = %v, want ErrStampTooLarge", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
		t.Fatalf("expanding a 64 MiB bomb allocated %d bytes; the stamp limit is %d", grew, stamp.MaxBytes)
	}
}
