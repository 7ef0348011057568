package store

import (
	"encoding/binary"
	"fmt"
)

// SchemaVersion is the layout version this virgo-tui writes into the meta
// bucket of a bbolt file. A file with a higher number is refused with
// ErrNewerSchema and left untouched.
const SchemaVersion = 1

// The file layout, version 1. Bucket names carry a "virgo." prefix so that a
// bbolt file of another application is never mistaken for ours.
var (
	// bucketMeta holds the schema version and the counters below.
	bucketMeta = []byte("virgo.meta")
	// bucketKV holds user keys; each value is valueHeader bytes + the data.
	bucketKV = []byte("virgo.kv")
	// bucketLog is the change log: key logKey(rev, index), value an event.
	bucketLog = []byte("virgo.log")

	keySchema    = []byte("schema")    // SchemaVersion of the file
	keyRev       = []byte("rev")       // revision of the last committed Txn
	keyCompacted = []byte("compacted") // highest revision trimmed from the log
	keyLogN      = []byte("logn")      // number of entries in the log
)

// valueHeader is CreateRev and ModRev, big-endian, in front of every value.
const valueHeader = 16

func encodeValue(createRev, modRev int64, data []byte) []byte {
	buf := make([]byte, valueHeader+len(data))
	binary.BigEndian.PutUint64(buf[0:], uint64(createRev))
	binary.BigEndian.PutUint64(buf[8:], uint64(modRev))
	copy(buf[valueHeader:], data)
	return buf
}

// decodeKV copies a stored value out of bbolt's memory map.
func decodeKV(key string, raw []byte) (KV, error) {
	if len(raw) < valueHeader {
		return KV{}, fmt.Errorf("%w: key %q has a %d-byte record, shorter than its header", ErrCorrupt, key, len(raw))
	}
	return KV{
		Key:       key,
		Value:     append([]byte{}, raw[valueHeader:]...),
		CreateRev: int64(binary.BigEndian.Uint64(raw[0:])),
		ModRev:    int64(binary.BigEndian.Uint64(raw[8:])),
	}, nil
}

// modRevOf is the ModRev of a raw stored value, 0 for an absent key.
func modRevOf(raw []byte) int64 {
	if len(raw) < valueHeader {
		return 0
	}
	return int64(binary.BigEndian.Uint64(raw[8:]))
}

// createRevOf is the CreateRev of a raw stored value.
func createRevOf(raw []byte) int64 {
	if len(raw) < valueHeader {
		return 0
	}
	return int64(binary.BigEndian.Uint64(raw[0:]))
}

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

// encodeEvent is a flags byte, the key length as a uvarint, key, value.
func encodeEvent(op Op) []byte {
	buf := make([]byte, 0, 1+binary.MaxVarintLen64+len(op.Key)+len(op.Value))
	var flags byte
	if op.Delete {
		flags = eventDelete
	}
	buf = append(buf, flags)
	buf = binary.AppendUvarint(buf, uint64(len(op.Key)))
	buf = append(buf, op.Key...)
	if !op.Delete {
		buf = append(buf, op.Value...)
	}
	return buf
}

// splitEvent returns the key and value of an encoded event without copying,
// so a watcher can filter by prefix before it copies anything.
func splitEvent(raw []byte) (key, value []byte, err error) {
	if len(raw) < 2 {
		return nil, nil, fmt.Errorf("%w: change log entry of %d bytes", ErrCorrupt, len(raw))
	}
	n, w := binary.Uvarint(raw[1:])
	if w <= 0 || uint64(len(raw)-1-w) < n {
		return nil, nil, fmt.Errorf("%w: change log entry with a bad key length", ErrCorrupt)
	}
	end := 1 + w + int(n)
	return raw[1+w : end], raw[end:], nil
}

func putU64(b interface{ Put(k, v []byte) error }, key []byte, v int64) error {
	buf := make([]byte, 8)
	binary.BigEndian.PutUint64(buf, uint64(v))
	return b.Put(key, buf)
}

// getU64 reads a meta counter; a missing or malformed one is corruption.
func getU64(b interface{ Get(k []byte) []byte }, key []byte) (int64, error) {
	v := b.Get(key)
	if len(v) != 8 {
		return 0, fmt.Errorf("%w: meta key %q is missing or malformed", ErrCorrupt, key)
	}
	return int64(binary.BigEndian.Uint64(v)), nil
}
