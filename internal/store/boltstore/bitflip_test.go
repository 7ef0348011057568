package boltstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// bitflipsEnv sets how many bits TestBitFlips flips: a number N samples N
// bits of the pages in use and N/10 of the free ones (default 600); "all"
// flips every bit of every page in use and every 64th of the free (`make
// bitflip`; about an hour on an idle machine).
const bitflipsEnv = "VIRGO_BITFLIPS"

// contents is everything a store serves: its records, its revision and
// the change log as a watcher from the oldest kept revision reads it.
type contents struct {
	kvs    []store.KV
	rev    int64
	events []store.Event
}

func (c contents) equal(o contents) bool {
	if c.rev != o.rev || len(c.kvs) != len(o.kvs) || len(c.events) != len(o.events) {
		return false
	}
	for i, kv := range c.kvs {
		ok := o.kvs[i]
		if kv.Key != ok.Key || !bytes.Equal(kv.Value, ok.Value) || kv.CreateRev != ok.CreateRev || kv.ModRev != ok.ModRev {
			return false
		}
	}
	for i, ev := range c.events {
		oe := o.events[i]
		if ev.Rev != oe.Rev || ev.Key != oe.Key || ev.Delete != oe.Delete || !bytes.Equal(ev.Value, oe.Value) {
			return false
		}
	}
	return true
}

// serve opens path and reads everything it serves.
func serve(path string) (contents, error) {
	b, err := Open(path, Options{})
	if err != nil {
		return contents{}, err
	}
	defer b.Close()
	var c contents
	if c.kvs, err = b.List(context.Background(), ""); err != nil {
		return c, err
	}
	st, err := b.Stats()
	if err != nil {
		return c, err
	}
	c.rev = st.Rev
	for next, more := st.Compacted+1, true; more; {
		var events []store.Event
		events, next, more, err = b.readLog(nil, next)
		if err != nil {
			return c, err
		}
		c.events = append(c.events, events...)
	}
	return c, nil
}

// flipSubject writes the database the flips damage: records over several
// leaf pages under a branch, updates and deletes (free pages), a change log.
func flipSubject(t *testing.T) string {
	b, path := openT(t, Options{})
	for i := 0; i < 160; i += 20 {
		var ops []store.Op
		for j := i; j < i+20; j++ {
			ops = append(ops, store.Put(fmt.Sprintf("confirmation/c-%03d", j),
				[]byte(fmt.Sprintf(`{"persona_id":"p-%03d","target":{"project":"core"},"state":"pending"}`, j))))
		}
		mustTxn(t, b, nil, ops...)
	}
	for i := 0; i < 160; i += 40 {
		var ops []store.Op
		for j := i; j < i+40; j += 4 {
			ops = append(ops, store.Put(fmt.Sprintf("confirmation/c-%03d", j), []byte(`{"state":"approved"}`)),
				store.Op{Key: fmt.Sprintf("confirmation/c-%03d", j+1), Delete: true})
		}
		mustTxn(t, b, nil, ops...)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// "A bit-flip test over a real database: every single-bit flip in the data
// pages is either harmless (free space) or reported — none serves changed
// data." The meta pages (0 and 1) are bbolt's, checksummed by it, with the
// other one as the fallback a torn write needs. CI tries a sample (see
// bitflipsEnv).
func TestBitFlips(t *testing.T) {
	src, err := os.ReadFile(flipSubject(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	clean := filepath.Join(dir, "clean.db")
	os.WriteFile(clean, src, 0o600)
	want, err := serve(clean)
	if err != nil {
		t.Fatal(err)
	}
	m := liveMeta(t, src)
	w, err := walkBytes(t, src)
	if err != nil {
		t.Fatal(err)
	}
	pageBits := 8 * int(m.pageSize)
	var used, free []int // bits of the pages in use, of the free pages
	for id, kind := range w.kind {
		for bit := id * pageBits; id >= 2 && bit < (id+1)*pageBits; bit++ {
			if kind == pageFree {
				free = append(free, bit)
			} else {
				used = append(used, bit)
			}
		}
	}
	var bits []int
	switch n := os.Getenv(bitflipsEnv); n {
	case "all":
		bits = used
		for i := 0; i < len(free); i += 64 {
			bits = append(bits, free[i])
		}
	default:
		sample := 600
		if n != "" {
			if sample, err = strconv.Atoi(n); err != nil || sample < 1 {
				t.Fatalf("%s=%q: want a count of flips or all", bitflipsEnv, n)
			}
		}
		rng := rand.New(rand.NewPCG(12, 1))
		for range sample {
			bits = append(bits, used[rng.IntN(len(used))])
		}
		for range max(sample/10, 1) {
			bits = append(bits, free[rng.IntN(len(free))])
		}
	}
	path := filepath.Join(dir, "virgo.db")
	var harmless, reported, served int
	for i, bit := range bits {
		if i > 0 && i%10_000 == 0 {
			t.Logf("%d flips: harmless %d, reported %d, served %d", i, harmless, reported, served)
		}
		data := bytes.Clone(src)
		data[bit/8] ^= 1 << (bit % 8)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := serve(path)
		switch {
		case errors.Is(err, store.ErrCorrupt), errors.Is(err, store.ErrRecordDamaged), errors.Is(err, store.ErrNewerSchema):
			reported++
		case err != nil:
			t.Fatalf("bit %d (page %d, byte %d): an unnamed error: %v", bit, bit/8/int(m.pageSize), bit/8%int(m.pageSize), err)
		case got.equal(want):
			harmless++
		default:
			served++
			t.Errorf("bit %d (page %d, byte %d) served changed data", bit, bit/8/int(m.pageSize), bit/8%int(m.pageSize))
		}
	}
	t.Logf("%d pages of %d bytes (%d in use, %d free); flips tried %d, harmless %d, reported %d, served %d",
		m.pgid, m.pageSize, len(used)/pageBits, len(free)/pageBits, len(bits), harmless, reported, served)
}
