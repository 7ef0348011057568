package boltstore

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"strconv"
	"unicode/utf8"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// SchemaVersion is the layout version this virgo-tui writes into the meta
// bucket of a bbolt file. A file with a higher number is refused with
// ErrNewerSchema and left untouched, so that a virgo-tui never misreads a
// layout written after it. The first release writes 1; a release that
// changes the layout raises it and migrates the files of the ones before.
const SchemaVersion = 1

// The file layout, version 1. Bucket names carry a "virgo." prefix so that a
// bbolt file of another application is never mistaken for ours.
//
// Every record carries a CRC-32C (Castagnoli) over its key and the rest of
// its bytes, checked on every read, so that a flipped bit in a key, a
// revision, a length or the data is reported with the record's key instead
// of served. bbolt checksums only its meta pages; the page walk (pagewalk.go)
// catches damage to the page structure, the checksums damage to the bytes
// the structure holds.
var (
	// bucketMeta holds the schema version and the counters below.
	bucketMeta = []byte("virgo.meta")
	// bucketKV holds user keys; each value is a record (encodeRecord).
	bucketKV = []byte("virgo.kv")
	// bucketLog is the change log: key logKey(rev, index), value an event
	// (encodeEvent) naming the key written, not its value.
	bucketLog = []byte("virgo.log")

	// keySchema is SchemaVersion as 8 bytes big-endian, without a
	// checksum: the one value every virgo-tui version reads the same way,
	// so an older one can tell the file is newer.
	keySchema    = []byte("schema")
	keyRev       = []byte("rev")       // revision of the last committed Txn
	keyCompacted = []byte("compacted") // highest revision trimmed from the log
	keyLogN      = []byte("logn")      // number of entries in the log
	keyLogBytes  = []byte("logbytes")  // bytes of keys and values in the log
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// checksum is the CRC-32C of key followed by rest.
func checksum(key, rest []byte) uint32 {
	return crc32.Update(crc32.Update(0, castagnoli, key), castagnoli, rest)
}

// damaged names a record whose checksum or shape does not hold.
func damaged(what string) error {
	return fmt.Errorf("%w: %s", store.ErrRecordDamaged, what)
}

// showKey is a key as an operator can read it in a message: as is when it
// is printable UTF-8, quoted with escapes otherwise (a damaged key may hold
// any byte, and must not drive a terminal).
func showKey(key []byte) string {
	if utf8.Valid(key) {
		printable := true
		for _, r := range string(key) {
			if !strconv.IsPrint(r) {
				printable = false
				break
			}
		}
		if printable {
			return string(key)
		}
	}
	return strconv.QuoteToASCII(string(key))
}

// A record is checksum, CreateRev and ModRev (big-endian), then the data.
// The top byte of CreateRev names the data's codec (codec.go).
const (
	sumSize      = 4
	recordHeader = sumSize + 16
)

// encodeRecord is the stored record of data, compressed when that pays.
func encodeRecord(key []byte, createRev, modRev int64, data []byte) []byte {
	codec, buf := compressValue(recordHeader, data)
	binary.BigEndian.PutUint64(buf[sumSize:], uint64(createRev)|uint64(codec)<<56)
	binary.BigEndian.PutUint64(buf[sumSize+8:], uint64(modRev))
	binary.BigEndian.PutUint32(buf, checksum(key, buf[sumSize:]))
	return buf
}

// checkRecord verifies a stored record of key.
func checkRecord(key, raw []byte) error {
	if len(raw) < recordHeader || binary.BigEndian.Uint32(raw) != checksum(key, raw[sumSize:]) {
		return damaged(showKey(key))
	}
	return nil
}

// checkStored verifies a stored record as decodeKV does, its checksum and
// then its value's expansion, without copying a value stored as written.
func checkStored(key, raw []byte) error {
	if err := checkRecord(key, raw); err != nil || codecOf(raw) == codecRaw {
		return err
	}
	_, err := expandValue(key, codecOf(raw), raw[recordHeader:])
	return err
}

// decodeKV verifies a stored record and returns it with its value as
// written, copied out of bbolt's memory map.
func decodeKV(key, raw []byte) (store.KV, error) {
	if err := checkRecord(key, raw); err != nil {
		return store.KV{}, err
	}
	v, err := expandValue(key, codecOf(raw), raw[recordHeader:])
	if err != nil {
		return store.KV{}, err
	}
	return store.KV{
		Key:       string(key),
		Value:     v,
		CreateRev: createRevOf(raw),
		ModRev:    modRevOf(raw),
	}, nil
}

// modRevOf is the ModRev of a checked record, 0 for an absent key.
func modRevOf(raw []byte) int64 {
	if len(raw) < recordHeader {
		return 0
	}
	return int64(binary.BigEndian.Uint64(raw[sumSize+8:]))
}

// createRevOf is the CreateRev of a checked record.
func createRevOf(raw []byte) int64 {
	if len(raw) < recordHeader {
		return 0
	}
	return int64(binary.BigEndian.Uint64(raw[sumSize:]) & revBits)
}

// codecOf is the codec of a checked record's data.
func codecOf(raw []byte) byte { return raw[sumSize] }

// logKey orders the change log by revision, then by op within the Txn.
func logKey(rev int64, index uint32) []byte {
	k := make([]byte, 12)
	binary.BigEndian.PutUint64(k, uint64(rev))
	binary.BigEndian.PutUint32(k[8:], index)
	return k
}

// logRev is the revision part of a log key.
func logRev(k []byte) int64 {
	if len(k) < 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(k))
}

const eventDelete = 1

// encodeEvent is a change-log entry: checksum (over the log key and the
// rest), a flags byte, the key written. The value is not copied: a watcher
// reads it from the record, which keeps the log small (a few dozen bytes an
// entry, whatever the values weigh).
func encodeEvent(lk []byte, key string, del bool) []byte {
	buf := make([]byte, sumSize+1+len(key))
	if del {
		buf[sumSize] = eventDelete
	}
	copy(buf[sumSize+1:], key)
	binary.BigEndian.PutUint32(buf, checksum(lk, buf[sumSize:]))
	return buf
}

// splitEvent verifies a change-log entry and returns the key it names,
// without copying, so a watcher can filter by prefix before it copies.
func splitEvent(lk, raw []byte) (key []byte, del bool, err error) {
	if len(lk) != 12 || len(raw) < sumSize+2 || raw[sumSize]&^eventDelete != 0 ||
		binary.BigEndian.Uint32(raw) != checksum(lk, raw[sumSize:]) {
		return nil, false, damaged(fmt.Sprintf("change log entry %d of revision %d", logIndex(lk), logRev(lk)))
	}
	return raw[sumSize+1:], raw[sumSize] == eventDelete, nil
}

// logIndex is the op index part of a log key.
func logIndex(k []byte) uint32 {
	if len(k) < 12 {
		return 0
	}
	return binary.BigEndian.Uint32(k[8:])
}

// logEntrySize is what an entry counts against Options.WatchHistoryBytes.
func logEntrySize(lk, v []byte) int64 { return int64(len(lk) + len(v)) }

// putSchema and getSchema store the schema version without a checksum.
func putSchema(b interface{ Put(k, v []byte) error }, v int64) error {
	buf := make([]byte, 8)
	binary.BigEndian.PutUint64(buf, uint64(v))
	return b.Put(keySchema, buf)
}

func getSchema(b interface{ Get(k []byte) []byte }) (int64, error) {
	v := b.Get(keySchema)
	if len(v) != 8 {
		return 0, fmt.Errorf("%w: the schema version is missing or malformed", store.ErrCorrupt)
	}
	return int64(binary.BigEndian.Uint64(v)), nil
}

// putCounter stores a meta counter: 8 bytes big-endian and a checksum over
// its key and them.
func putCounter(b interface{ Put(k, v []byte) error }, key []byte, v int64) error {
	buf := make([]byte, 8+sumSize)
	binary.BigEndian.PutUint64(buf, uint64(v))
	binary.BigEndian.PutUint32(buf[8:], checksum(key, buf[:8]))
	return b.Put(key, buf)
}

// getCounter reads a meta counter; a missing, malformed or damaged one is
// ErrRecordDamaged.
func getCounter(b interface{ Get(k []byte) []byte }, key []byte) (int64, error) {
	v := b.Get(key)
	if len(v) != 8+sumSize || binary.BigEndian.Uint32(v[8:]) != checksum(key, v[:8]) {
		return 0, damaged("meta/" + string(key))
	}
	return int64(binary.BigEndian.Uint64(v)), nil
}
