package store

import (
	"bytes"
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Schema version 1 (virgo-tui before records carried checksums): a record
// was CreateRev and ModRev (16 bytes big-endian) then the data; a change-log
// entry was a flags byte, the key's length as a uvarint, the key, then a
// copy of the value; meta counters were 8 bytes big-endian.
const v1RecordHeader = 16

// getU64V1 reads a version 1 meta counter.
func getU64V1(b interface{ Get(k []byte) []byte }, key []byte) (int64, error) {
	v := b.Get(key)
	if len(v) != 8 {
		return 0, fmt.Errorf("meta key %q is missing or malformed", key)
	}
	return int64(binary.BigEndian.Uint64(v)), nil
}

// splitEventV1 returns the key and the delete flag of a version 1 entry.
func splitEventV1(raw []byte) (key []byte, del bool, err error) {
	if len(raw) < 2 {
		return nil, false, fmt.Errorf("a change log entry of %d bytes", len(raw))
	}
	n, w := binary.Uvarint(raw[1:])
	if w <= 0 || uint64(len(raw)-1-w) < n || n == 0 {
		return nil, false, fmt.Errorf("a change log entry with a bad key length")
	}
	return raw[1+w : 1+w+int(n)], raw[0]&eventDelete != 0, nil
}

// migrate brings a file of schema version from up to SchemaVersion inside
// the caller's one write transaction (OpenBolt holds bbolt's exclusive
// lock). A version 2 file only takes the new number: its records are
// version 3 records stored as written. A version 1 file is rewritten first
// (migrateV1).
func migrate(tx *bolt.Tx, from int64) error {
	if from < schemaChecksums {
		if err := migrateV1(tx); err != nil {
			return err
		}
	}
	return putSchema(tx.Bucket(bucketMeta), SchemaVersion)
}

// migrateV1 rewrites a version 1 file in the current layout: every record
// gains its checksum (and is compressed where that pays), the change log
// drops its value copies (a watcher reads values from the records), the
// counters gain checksums and the log's byte count. Nothing stored is lost.
// If any version 1 entry is malformed the transaction rolls back, the file
// stays as it was, and the open is refused naming the entry.
func migrateV1(tx *bolt.Tx) error {
	meta, kv, log := tx.Bucket(bucketMeta), tx.Bucket(bucketKV), tx.Bucket(bucketLog)
	err := rewrite(kv, func(k, v []byte) ([]byte, error) {
		if len(v) < v1RecordHeader {
			return nil, fmt.Errorf("%w: record %s is %d bytes, shorter than its header", ErrCorrupt, showKey(k), len(v))
		}
		be := binary.BigEndian
		return encodeRecord(k, int64(be.Uint64(v)), int64(be.Uint64(v[8:])), v[v1RecordHeader:]), nil
	})
	if err != nil {
		return err
	}
	var logBytes int64
	err = rewrite(log, func(k, v []byte) ([]byte, error) {
		key, del, err := splitEventV1(v)
		if err != nil || len(k) != 12 {
			return nil, fmt.Errorf("%w: change log entry at revision %d: %v", ErrCorrupt, logRev(k), err)
		}
		e := encodeEvent(k, string(key), del)
		logBytes += logEntrySize(k, e)
		return e, nil
	})
	if err != nil {
		return err
	}
	for _, k := range [][]byte{keyRev, keyCompacted, keyLogN} {
		v, err := getU64V1(meta, k)
		if err == nil {
			err = putCounter(meta, k, v)
		}
		if err != nil {
			return fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
	}
	return putCounter(meta, keyLogBytes, logBytes)
}

// rewrite replaces every value of bucket b with f(key, value). It works in
// chunks and repositions its cursor after each chunk's puts: a bbolt cursor
// is not valid across writes to its bucket.
func rewrite(b *bolt.Bucket, f func(k, v []byte) ([]byte, error)) error {
	type entry struct{ k, v []byte }
	var after []byte
	for {
		var chunk []entry
		c := b.Cursor()
		k, v := c.First()
		if after != nil {
			if k, v = c.Seek(after); bytes.Equal(k, after) {
				k, v = c.Next()
			}
		}
		for ; k != nil && len(chunk) < 1024; k, v = c.Next() {
			if v == nil {
				return fmt.Errorf("%w: key %s holds a bucket, which the virgo layout never nests", ErrCorrupt, showKey(k))
			}
			nv, err := f(k, v)
			if err != nil {
				return err
			}
			chunk = append(chunk, entry{bytes.Clone(k), nv})
		}
		if len(chunk) == 0 {
			return nil
		}
		for _, e := range chunk {
			if err := b.Put(e.k, e.v); err != nil {
				return err
			}
		}
		after = chunk[len(chunk)-1].k
	}
}
