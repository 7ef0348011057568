package usecase

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"runtime"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/stamp"
	"github.com/virgo-hub/virgo-tui/internal/store"
)

// A stamp is stored compressed, several times smaller than its file, and
// read back to the file's own bytes, which its recorded hash is over.
func TestStampIsStoredCompressed(t *testing.T) {
	in := newInstallation(t)
	p := in.register(t, "work/core/deputy", "Spica")
	file, err := os.ReadFile(in.cases.localStampPath(p.ID))
	mustNil(t, err)
	kv, err := in.st.Get(context.Background(), StampPrefix+p.ID)
	mustNil(t, err)
	if !bytes.HasPrefix(kv.Value, gzipMagic) || len(kv.Value)*3 > len(file) {
		t.Fatalf("stored %d bytes of a %d-byte stamp (want gzip, under a third)", len(kv.Value), len(file))
	}
	b, err := unpackStamp(kv.Value)
	mustNil(t, err)
	mustNil(t, stamp.VerifyHash("stored", b, p.StampHash))
}

// A store written before stamps were compressed holds the raw JSON: it is
// still read, and verified.
func TestRawStoredStampIsStillRead(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	p := in.register(t, "work/core/lead", "Spica")
	file, err := os.ReadFile(in.cases.localStampPath(p.ID))
	mustNil(t, err)
	_, err = in.st.Txn(ctx, nil, []store.Op{store.Put(StampPrefix+p.ID, file)})
	mustNil(t, err)
	mustNil(t, os.Remove(in.cases.localStampPath(p.ID)))
	st, err := in.fresh().LoadStamp(context.Background(), p)
	if err != nil || st.Persona.ID != p.ID {
		t.Fatalf("a raw stored stamp: %v", err)
	}
}

// A stored value is hostile input: one that does not expand is a named
// error, and one that expands past the stamp limit is refused after
// reading at most the limit + 1 bytes, never expanded whole (a bomb).
func TestDamagedOrOversizedStoredStampIsRefused(t *testing.T) {
	in := newInstallation(t)
	ctx := context.Background()
	p := in.register(t, "work/core/lead", "Spica")
	kv, err := in.st.Get(ctx, StampPrefix+p.ID)
	mustNil(t, err)

	var bomb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&bomb, gzip.BestCompression)
	zeros := make([]byte, 1<<20)
	for i := 0; i < 256; i++ { // 256 MiB expanded, a few hundred KiB stored
		_, err := zw.Write(zeros)
		mustNil(t, err)
	}
	mustNil(t, zw.Close())
	truncated := kv.Value[:len(kv.Value)/2]
	flipped := bytes.Clone(kv.Value)
	flipped[len(flipped)-6] ^= 0xff // the CRC-32 of the expanded bytes

	for _, c := range []struct {
		name  string
		value []byte
		want  []error
	}{
		{"truncated", truncated, []error{ErrStoredStampDamaged, stamp.ErrInvalidStamp}},
		{"checksum", flipped, []error{ErrStoredStampDamaged, stamp.ErrInvalidStamp}},
		{"header only", gzipMagic, []error{ErrStoredStampDamaged, stamp.ErrInvalidStamp}},
		{"bomb", bomb.Bytes(), []error{stamp.ErrStampTooLarge}},
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
