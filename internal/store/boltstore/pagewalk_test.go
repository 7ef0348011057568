package boltstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// pinnedBbolt is the bbolt release whose page format precheck.go and
// pagewalk.go were checked against (internal/common/page.go, inode.go and
// internal/freelist of that release).
const pinnedBbolt = "v1.5.0"

// liveMeta is the meta page bbolt will use: the valid one with the higher
// transaction id.
func liveMeta(t testing.TB, data []byte) boltMeta {
	t.Helper()
	m0 := parseMeta(data[pageHeaderSize:])
	m1 := parseMeta(data[int(m0.pageSize)+pageHeaderSize:])
	switch {
	case m0.valid() && (!m1.valid() || m0.txid > m1.txid):
		return m0
	case m1.valid():
		return m1
	}
	t.Fatal("no valid meta page")
	return boltMeta{}
}

// walkBytes runs the page walk over a database image in memory.
func walkBytes(t testing.TB, data []byte) (*pageWalk, error) {
	m := liveMeta(t, data)
	w := &pageWalk{r: chunkReader{f: bytes.NewReader(data), buf: make([]byte, walkChunk)},
		pageSize: uint64(m.pageSize), hwm: m.pgid, kind: make([]byte, m.pgid)}
	return w, w.run(m.root, m.freelist)
}

// varied writes a virgo database whose pages show every shape the walk
// knows: branch pages, leaves, overflow pages, an inline bucket (meta),
// free pages after deletes.
func varied(t testing.TB) string {
	b, path := openT(t, Options{})
	ctx := context.Background()
	for i := 0; i < 600; i += 100 {
		ops := []store.Op{store.Put(fmt.Sprintf("big/%d", i), incompressible(3*4096+i))}
		for j := i; j < i+100; j++ {
			ops = append(ops, store.Put(keyN(j), incompressible(300)))
		}
		if _, err := b.Txn(ctx, nil, ops); err != nil {
			t.Fatal(err)
		}
	}
	for j := 0; j < 600; j += 3 {
		mustTxn(t, b, nil, store.Op{Key: keyN(j), Delete: true})
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPageFormatPinnedToBbolt: the page walk reads bbolt's format as bbolt
// does. An upgrade of bbolt fails here first: by version, so that someone
// re-reads bbolt's page format before moving the pin, and by behaviour,
// comparing what the walk makes of every page with bbolt's own page view
// and its own consistency check.
func TestPageFormatPinnedToBbolt(t *testing.T) {
	mod, err := os.ReadFile("../../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	var version string
	for _, line := range strings.Split(string(mod), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "go.etcd.io/bbolt" {
			version = f[1]
		}
	}
	if version != pinnedBbolt {
		t.Errorf("go.etcd.io/bbolt is %s; precheck.go and pagewalk.go were verified against %s. "+
			"Compare bbolt's internal/common (page, inode, meta) and internal/freelist with them, then move pinnedBbolt",
			version, pinnedBbolt)
	}

	path := varied(t)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := walkBytes(t, data)
	if err != nil {
		t.Fatalf("the walk refuses a database bbolt wrote: %v", err)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	counts := map[string]int{}
	err = db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			t.Errorf("bbolt check: %v", err)
		}
		want := map[byte]string{pageBranch: "branch", pageLeaf: "leaf", pageFreelist: "freelist", pageFree: "free"}
		for id := 2; id < int(w.hwm); id++ {
			info, err := tx.Page(id)
			if err != nil {
				return err
			}
			kind := w.kind[id]
			if kind == pageOverflow {
				continue // bbolt reads a continuation page's bytes as if it were a header
			}
			counts[info.Type]++
			if want[kind] != info.Type {
				t.Errorf("page %d: the walk says %q, bbolt %q", id, want[kind], info.Type)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range []string{"branch", "leaf", "freelist", "free"} {
		if counts[typ] == 0 {
			t.Errorf("the test database has no %s page (%v); it must show every kind", typ, counts)
		}
	}
	t.Logf("pages by bbolt type: %v", counts)
}

// "The pre-open check never compares a page's own id with the id it was
// reached by: a zeroed in-use page passes and the hub writes to the file."
// Each damage below is one bbolt itself would read without complaint.
func TestPrecheckRefusesPageDamage(t *testing.T) {
	src, err := os.ReadFile(varied(t))
	if err != nil {
		t.Fatal(err)
	}
	w, err := walkBytes(t, src)
	if err != nil {
		t.Fatal(err)
	}
	ps := int(w.pageSize)
	first := func(kind byte) int {
		for id, k := range w.kind {
			if k == kind {
				return id
			}
		}
		t.Fatalf("no page of kind %d", kind)
		return 0
	}
	leaf, branch := first(pageLeaf), first(pageBranch)
	for _, tc := range []struct {
		name, words string
		damage      func(b []byte)
	}{
		{"zeroed in-use page", "carries the id 0", func(b []byte) { clear(b[leaf*ps : (leaf+1)*ps]) }},
		{"page copied over another", "carries the id", func(b []byte) { copy(b[leaf*ps:(leaf+1)*ps], b[branch*ps:]) }},
		{"leaf flagged branch", "where a branch or leaf belongs", func(b []byte) { b[leaf*ps+8] = 0x04 }},
		{"element count one lower", "not where the one before it ends", func(b []byte) { b[leaf*ps+10]-- }},
		{"branch key raised", "outside the range|not above the key before it", func(b []byte) {
			// The second key of the branch: its data starts where the
			// first element's pos points, plus the first key.
			// Its last byte goes up by one: above the first key of the
			// child it bounds (outside that child's range) — or, where the
			// byte was 0xff and wraps to 0x00, below the key before it.
			// Which branch page comes first depends on how bbolt reused
			// free pages, so both refusals are the damage found.
			at := branch*ps + pageHeaderSize + elementSize
			pos, ksize := int(le.Uint32(b[at:])), int(le.Uint32(b[at+4:]))
			b[at+pos+ksize-1]++
		}},
		{"value flagged as a nested bucket", "never nests", func(b []byte) { b[leaf*ps+pageHeaderSize] |= bucketLeafFlag }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := bytes.Clone(src)
			tc.damage(data)
			path := filepath.Join(t.TempDir(), "virgo.db")
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			b, err := Open(path, Options{})
			if err == nil {
				b.Close()
				t.Fatal("opened a damaged file")
			}
			if !errors.Is(err, store.ErrCorrupt) || !slices.ContainsFunc(strings.Split(tc.words, "|"), func(w string) bool { return strings.Contains(err.Error(), w) }) {
				t.Fatalf("error %q: want store.ErrCorrupt saying %q", err, tc.words)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(after, data) {
				t.Fatal("a refused file was changed")
			}
		})
	}
}

// txCheckEnv names the damaged file TestTxCheckOfDamagedFile checks in a
// process of its own.
const txCheckEnv = "VIRGO_STORE_TXCHECK_FILE"

// TestTxCheckOfDamagedFile is the helper process of
// TestTheWalkStandsWhereTxCheckCannot: bbolt's Tx.Check of the file its
// environment names, under guard, as the pre-open check would run it.
func TestTxCheckOfDamagedFile(t *testing.T) {
	path := os.Getenv(txCheckEnv)
	if path == "" {
		t.Skip("helper process for TestTheWalkStandsWhereTxCheckCannot")
	}
	err := guard("check", func() error {
		db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
		if err != nil {
			return err
		}
		defer db.Close()
		return db.View(func(tx *bolt.Tx) error {
			for err := range tx.Check() {
				return err
			}
			return nil
		})
	})
	fmt.Fprintf(os.Stdout, "checked: %v\n", err)
}

// What the pre-open walk buys over bbolt's own Tx.Check, which reads the
// same pages faster (BenchmarkPageCheck10k): a leaf element whose offset
// points far outside the file makes Tx.Check fault in a goroutine of its
// own, where no guard can recover, and the whole process dies; the walk
// refuses the same file with ErrCorrupt and the process goes on.
func TestTheWalkStandsWhereTxCheckCannot(t *testing.T) {
	src, err := os.ReadFile(varied(t))
	if err != nil {
		t.Fatal(err)
	}
	w, err := walkBytes(t, src)
	if err != nil {
		t.Fatal(err)
	}
	ps := int(w.pageSize)
	leaf := slices.Index(w.kind, pageLeaf)
	// The first element's pos (flags, pos, ksize, vsize): 1 GiB past its
	// page, far outside the map of a file of a few hundred KiB.
	le.PutUint32(src[leaf*ps+pageHeaderSize+4:], 1<<30)
	path := filepath.Join(t.TempDir(), "virgo.db")
	if err := os.WriteFile(path, src, 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := Open(path, Options{}); err == nil {
		b.Close()
		t.Fatal("opened the damaged file")
	} else if !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("open: %v, want ErrCorrupt", err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestTxCheckOfDamagedFile$", "-test.v")
	cmd.Env = append(os.Environ(), txCheckEnv+"="+path)
	out, err := cmd.CombinedOutput()
	if err == nil || bytes.Contains(out, []byte("checked: ")) || !bytes.Contains(out, []byte("fatal error: fault")) {
		t.Fatalf("Tx.Check of the damaged file (%v) did not die of a fault:\n%.2000s", err, out)
	}
}
