//go:build linux

package boltstore

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// decisionShape is a bare bbolt file laid out as the store's (a meta bucket
// of counters, one bucket of records, the change log) holding 4,000 decided
// confirmations (16,000 records and their change log), on which a commit of a decision's shape can be tried under
// different bbolt options and key layouts. It writes what the use case's
// decision writes, at the sizes it writes them: the confirmation (3.2 kB)
// and its undecided entry (made by the registration just before, so near
// the right edge of their ranges) are rewritten and deleted, an audit entry
// (460 B) and an idempotency record (150 B) appended, the persona (590 B,
// at a random place) rewritten, one change-log entry per record and the
// four counters.
type decisionShape struct {
	db *bolt.DB
	// colocate keys a confirmation's records (itself, its undecided entry,
	// audit entry and idempotency record) by its time-ordered id first, so
	// they share a leaf; the persona keeps its own range.
	colocate bool
	seq      uint64
	rev      uint64
	persona  []byte
}

// shapeValues are the sizes of a decision's records, by kind (the use
// case's, measured through the change log).
var shapeValues = map[string][]byte{
	"req": make([]byte, 3200), "undecided": make([]byte, 40), "audit": make([]byte, 460),
	"persona": make([]byte, 590), "idempotency": make([]byte, 150),
}

var shapeBuckets = [][]byte{bucketMeta, bucketKV, bucketLog}

func newDecisionShape(tb testing.TB, opts bolt.Options, colocate bool) *decisionShape {
	tb.Helper()
	opts.Timeout = time.Second
	db, err := bolt.Open(filepath.Join(tb.TempDir(), "shape.db"), 0o600, &opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	d := &decisionShape{db: db, colocate: colocate}
	if err := db.Update(func(tx *bolt.Tx) error {
		for _, name := range shapeBuckets {
			if _, err := tx.CreateBucket(name); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		tb.Fatal(err)
	}
	// 4,000 decided confirmations, 100 to a transaction.
	for n := 0; n < 4000; n += 100 {
		if err := db.Update(func(tx *bolt.Tx) error {
			for range 100 {
				if err := d.register(tx); err != nil {
					return err
				}
				if err := d.decide(tx); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			tb.Fatal(err)
		}
	}
	return d
}

func (d *decisionShape) key(kind string) []byte {
	if d.colocate {
		return fmt.Appendf(nil, "c/%016x/%s", d.seq, kind)
	}
	return fmt.Appendf(nil, "%s/%016x", kind, d.seq)
}

func (d *decisionShape) put(tx *bolt.Tx, kind string, key []byte, del bool) error {
	kv, log := tx.Bucket(bucketKV), tx.Bucket(bucketLog)
	var err error
	if del {
		err = kv.Delete(key)
	} else {
		err = kv.Put(key, shapeValues[kind])
	}
	if err != nil {
		return err
	}
	d.rev++
	return log.Put(binary.BigEndian.AppendUint64(nil, d.rev), append([]byte{0, 0, 0, 0, 0}, key...))
}

func (d *decisionShape) counters(tx *bolt.Tx) error {
	meta := tx.Bucket(bucketMeta)
	for _, k := range []string{"rev", "logn", "logbytes", "compacted"} {
		if err := meta.Put([]byte(k), binary.BigEndian.AppendUint64(nil, d.rev)); err != nil {
			return err
		}
	}
	return nil
}

// register writes a new pending confirmation, its undecided entry and its
// persona (at a random place of the persona range).
func (d *decisionShape) register(tx *bolt.Tx) error {
	d.seq++
	d.persona = fmt.Appendf(nil, "persona/%016x", rand.Uint64())
	for _, kind := range []string{"req", "undecided", "persona"} {
		k := d.persona
		if kind != "persona" {
			k = d.key(kind)
		}
		if err := d.put(tx, kind, k, false); err != nil {
			return err
		}
	}
	return d.counters(tx)
}

// decide writes the decision's records in one transaction.
func (d *decisionShape) decide(tx *bolt.Tx) error {
	for _, w := range []struct {
		kind string
		k    []byte
		del  bool
	}{{"req", d.key("req"), false}, {"undecided", d.key("undecided"), true}, {"audit", d.key("audit"), false},
		{"persona", d.persona, false}, {"idempotency", d.key("idempotency"), false}} {
		if err := d.put(tx, w.kind, w.k, w.del); err != nil {
			return err
		}
	}
	return d.counters(tx)
}

// commit registers (unmetered) and then commits one decision on m.
func (d *decisionShape) commit(tb testing.TB, m *meter) {
	if err := d.db.Update(d.register); err != nil {
		tb.Fatal(err)
	}
	writes := func() int64 { st := d.db.Stats(); return st.TxStats.GetWrite() }
	before := writes()
	m.start()
	if err := d.db.Update(d.decide); err != nil {
		tb.Fatal(err)
	}
	m.stop()
	m.pages += writes() - before
}

// BenchmarkFreelistRebuild is the cost of bbolt's NoFreelistSync at open:
// a file whose commits wrote no freelist has its free pages found by
// walking every page of every bucket at each read-write open, so the open
// grows with the file. It opens bare bbolt files of 20,000 and 200,000
// records of 600 B (file-MB says their size) written with and without a
// freelist; a store of 10,000 personas and 100,000 decided confirmations
// is a 548 MB file.
func BenchmarkFreelistRebuild(b *testing.B) {
	for _, records := range []int{20_000, 200_000} {
		for _, noFreelist := range []bool{false, true} {
			b.Run(fmt.Sprintf("records=%d/nofreelist=%v", records, noFreelist), func(b *testing.B) {
				path := filepath.Join(b.TempDir(), "shape.db")
				opts := &bolt.Options{Timeout: time.Second, NoSync: true, NoFreelistSync: noFreelist, FreelistType: bolt.FreelistMapType}
				db, err := bolt.Open(path, 0o600, opts)
				if err != nil {
					b.Fatal(err)
				}
				value := make([]byte, 600)
				for n := 0; n < records; n += 1000 {
					if err := db.Update(func(tx *bolt.Tx) error {
						kv, err := tx.CreateBucketIfNotExists(bucketKV)
						if err != nil {
							return err
						}
						for range 1000 {
							if err := kv.Put(fmt.Appendf(nil, "r/%016x", rand.Uint64()), value); err != nil {
								return err
							}
						}
						return nil
					}); err != nil {
						b.Fatal(err)
					}
				}
				if err := db.Sync(); err != nil {
					b.Fatal(err)
				}
				db.Close()
				fi, err := os.Stat(path)
				if err != nil {
					b.Fatal(err)
				}
				opts.NoSync = false
				for b.Loop() {
					db, err := bolt.Open(path, 0o600, opts)
					if err != nil {
						b.Fatal(err)
					}
					db.Close()
				}
				b.ReportMetric(float64(fi.Size())/1e6, "file-MB")
			})
		}
	}
}
