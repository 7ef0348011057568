package usecase

import (
	"bytes"
	"compress/gzip"
	_ "embed" // the stamp dictionary
	"errors"
	"fmt"
	"io"

	"github.com/virgo-hub/virgo-tui/internal/flatedict"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// A stamp is stored compressed against a dictionary of stamps: the first
// stamps of every role as this version's factory writes them
// (stamp-dict-v1.json, TestWriteStampDictionary). A stamp repeats its
// role's tools, classes and bindings, so it is stored as what differs (its
// ids, hashes, address, times): about 150 bytes for a 4.6 kB file, against
// 900 with gzip alone — at 10,000 personas, 7 MiB of the database. What is
// compressed is the stamp file's own bytes, so the recorded hash is still
// over them: a read expands, then verifies, and a stamp expanded against
// any other dictionary fails that check. The dictionary is frozen
// (TestStampDictionaryIsFrozen): a better one is a new format byte.
//
// Stores written before hold gzip (told apart by gzip's magic number) or,
// older still, the raw JSON; both are read as they are. No JSON text starts
// with either first byte.

// stampFormatV1 is the first byte of a stamp compressed against
// stampDictV1.
const stampFormatV1 = 1

// stampDictV1 is the stamp dictionary of stampFormatV1: never edit it.
//
//go:embed stamp-dict-v1.json
var stampDictV1 []byte

// stampCodec packs stamps against stampDictV1.
var stampCodec = flatedict.New(stampFormatV1, stampDictV1, stamp.MaxBytes)

// gzipMagic opens every gzip stream (RFC 1952).
var gzipMagic = []byte{0x1f, 0x8b}

// ErrStoredStampDamaged: a stored stamp's compressed bytes do not expand
// (damaged, or not written by a hub). It is an invalid stamp: the
// generation is refused as for any stamp that does not verify.
var ErrStoredStampDamaged = errors.New("stored capability stamp does not expand")

// packStamp is the stored form of stamp file bytes b: compressed, or as
// they are when that does not make them smaller.
func packStamp(b []byte) []byte {
	if z := stampCodec.Pack(b); z != nil {
		return z
	}
	return b
}

// unpackStamp is the stamp file bytes of stored value v, any form. It
// expands at most stamp.MaxBytes+1 bytes: a value that expands past the
// stamp limit is ErrStampTooLarge, one that does not expand
// ErrStoredStampDamaged — never more memory than the limit.
func unpackStamp(v []byte) ([]byte, error) {
	if len(v) > 0 && v[0] == stampFormatV1 {
		b, err := stampCodec.Unpack(v)
		switch {
		case errors.Is(err, flatedict.ErrTooLarge):
			return nil, fmt.Errorf("%w: it expands past %d bytes, the limit", stamp.ErrStampTooLarge, stamp.MaxBytes)
		case err != nil:
			return nil, fmt.Errorf("%w (%w): %w", ErrStoredStampDamaged, stamp.ErrInvalidStamp, err)
		}
		return b, nil
	}
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
