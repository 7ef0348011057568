package boltstore

import (
	_ "embed" // the value dictionary
	"fmt"
	"sync"

	"github.com/klauspost/compress/s2"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// A record's value is stored as written (codecRaw) or as an S2 block
// compressed against a dictionary of the installation's own records
// (codecS2DictV1): this is the one place a stored value is compressed. Most
// records are small JSON objects that repeat one another's field names,
// roles, tool names and class matrix rows, and a stamp or an activation's
// diff repeats its class's; alone they compress to about half, against
// the dictionary to a third or less (docs/store.md, *Values stored
// compressed*, has the figures of BenchmarkStampedDatabase). S2 rather
// than zstd: it encodes a record in about a microsecond and expands it in
// a third of that, so a request's few writes and reads stay off its
// profile, for a few percent less saving.
//
// The codec is the top byte of the record's CreateRev field: a revision
// never reaches 2^56.
const (
	codecRaw      byte = 0
	codecS2DictV1 byte = 1
)

// revBits masks the revision out of a CreateRev field.
const revBits = 1<<56 - 1

// s2DictV1 is the dictionary of codecS2DictV1. Once a release has written
// records with it, it is frozen: they are read with it for as long as such
// files exist, and a better dictionary is a new codec byte beside this one,
// never a change to this file (TestValueDictionaryIsFrozen). It was built
// by TestWriteStoreDictionary (internal/hub) from a registered, activated
// and working installation's records.
//
//go:embed dict/s2-v1.dict
var s2DictV1 []byte

// valueDictV1 is s2DictV1 parsed, with its encoding tables built on first
// use (s2.Dict is safe for concurrent use).
var valueDictV1 = mustDict(s2DictV1)

// mustDict parses an embedded dictionary. One that does not parse is a
// build of this program that must not run: it could read no compressed
// record. That it is the frozen one is TestValueDictionaryIsFrozen's to
// say, not every start's.
func mustDict(raw []byte) *s2.Dict {
	d := s2.NewDict(raw)
	if d == nil {
		panic("boltstore: the embedded value dictionary does not parse (internal/store/boltstore/dict)")
	}
	return d
}

// minCompressed is the smallest value worth compressing: below it the
// saving is a few bytes and the read pays the expansion every time.
const minCompressed = 64

// compressScratch holds the encoder's output before it is copied into the
// record (bbolt keeps the record's slice until the commit, so the scratch
// cannot be it).
var compressScratch = sync.Pool{New: func() any { return new([]byte) }}

// compressValue returns the codec and the bytes a value is stored as, and
// writes them after header in one new slice: compressed when that saves at
// least an eighth of the value (a smaller saving is not worth the
// expansion on every read), as written otherwise.
func compressValue(header int, data []byte) (codec byte, rec []byte) {
	if len(data) >= minCompressed {
		p := compressScratch.Get().(*[]byte)
		z := valueDictV1.Encode((*p)[:0], data)
		defer func() { *p = z[:0]; compressScratch.Put(p) }()
		if len(z) <= len(data)-len(data)/8 {
			rec = make([]byte, header+len(z))
			copy(rec[header:], z)
			return codecS2DictV1, rec
		}
	}
	rec = make([]byte, header+len(data))
	copy(rec[header:], data)
	return codecRaw, rec
}

// expandValue returns a checked record's value as it was written, in a new
// slice (never bbolt's memory). A block that claims more than a transaction
// may write, does not expand, or names a codec this version does not know
// is ErrRecordDamaged: its checksum held, so the file was written by
// something other than virgo-tui.
func expandValue(key []byte, codec byte, body []byte) ([]byte, error) {
	switch codec {
	case codecRaw:
		return append([]byte{}, body...), nil
	case codecS2DictV1:
		n, err := s2.DecodedLen(body)
		if err != nil {
			return nil, damaged(fmt.Sprintf("%s: its compressed value has no length: %v", showKey(key), err))
		}
		if n > store.MaxTxnBytes {
			return nil, damaged(fmt.Sprintf("%s: its compressed value claims %d bytes, more than a transaction writes (%d)", showKey(key), n, store.MaxTxnBytes))
		}
		v, err := valueDictV1.Decode(make([]byte, 0, n), body)
		if err != nil {
			return nil, damaged(fmt.Sprintf("%s: its compressed value does not expand: %v", showKey(key), err))
		}
		return v, nil
	default:
		return nil, damaged(fmt.Sprintf("%s: its value names codec %d, which this virgo-tui does not know", showKey(key), codec))
	}
}
