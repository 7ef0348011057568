package usecase

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"

	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// A stamp is stored gzip-compressed: its JSON repeats the same keys and
// tool names, and shrinks about five times (a factory stamp's ~4.5 KB to
// under 1 KB), which at 10,000 personas is most of the database. What is
// compressed is the stamp file's own bytes, so the recorded hash is still
// over them: a read expands, then verifies. A store written before stamps
// were compressed holds the raw JSON, which is read as it is; the two forms
// are told apart by gzip's magic number, which no JSON text starts with.

// gzipMagic opens every gzip stream (RFC 1952).
var gzipMagic = []byte{0x1f, 0x8b}

// ErrStoredStampDamaged: a stored stamp's compressed bytes do not expand
// (damaged, or not written by a hub). It is an invalid stamp: the
// generation is refused as for any stamp that does not verify.
var ErrStoredStampDamaged = errors.New("stored capability stamp does not expand")

// packStamp is the stored form of stamp file bytes b.
func packStamp(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, fmt.Errorf("compress a stamp: %w", err)
	}
	if _, err := zw.Write(b); err != nil {
		return nil, fmt.Errorf("compress a stamp: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("compress a stamp: %w", err)
	}
	return buf.Bytes(), nil
}

// unpackStamp is the stamp file bytes of stored value v, either form. It
// expands at most stamp.MaxBytes+1 bytes: a value that expands past the
// stamp limit is ErrStampTooLarge, one that does not expand
// ErrStoredStampDamaged — never more memory than the limit.
func unpackStamp(v []byte) ([]byte, error) {
	if !bytes.HasPrefix(v, gzipMagic) {
		return v, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(v))
	if err != nil {
		return nil, fmt.Errorf("%w (%w): %w", ErrStoredStampDamaged, stamp.ErrInvalidStamp, err)
	}
	b, err := io.ReadAll(io.LimitReader(zr, stamp.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w (%w): %w", ErrStoredStampDamaged, stamp.ErrInvalidStamp, err)
	}
	if len(b) > stamp.MaxBytes {
		return nil, fmt.Errorf("%w: it expands past %d bytes, the limit", stamp.ErrStampTooLarge, stamp.MaxBytes)
	}
	return b, nil
}
