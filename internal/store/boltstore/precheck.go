package boltstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/store"
)

// What precheck knows of bbolt's on-disk format (bbolt v1.5, format version
// 2): every page starts with a 16-byte header (id, flags, count, overflow);
// pages 0 and 1 hold a meta record each, the valid one with the higher
// transaction id wins; the meta names the root bucket's page, the freelist
// page and the high-water mark (pages in use).
const (
	pageHeaderSize   = 16
	metaSize         = 64
	metaSumOffset    = 56
	boltMagic        = 0xED0CDAED
	boltVersion      = 2
	freelistPageFlag = 0x10
	noFreelist       = ^uint64(0)
)

type boltMeta struct {
	version, pageSize    uint32
	root, freelist, pgid uint64
	txid                 uint64
	sum                  uint64 // the checksum the page carries
	magicOK, checksumOK  bool
}

func parseMeta(b []byte) boltMeta {
	var m boltMeta
	if len(b) < metaSize {
		return m
	}
	le := binary.LittleEndian
	m.magicOK = le.Uint32(b[0:]) == boltMagic
	m.version = le.Uint32(b[4:])
	m.pageSize = le.Uint32(b[8:])
	m.root = le.Uint64(b[16:])
	m.freelist = le.Uint64(b[32:])
	m.pgid = le.Uint64(b[40:])
	m.txid = le.Uint64(b[48:])
	h := fnv.New64a()
	h.Write(b[:metaSumOffset])
	m.sum = le.Uint64(b[metaSumOffset:])
	m.checksumOK = h.Sum64() == m.sum
	return m
}

func (m boltMeta) valid() bool { return m.magicOK && m.version == boltVersion && m.checksumOK }

// precheck refuses, before bbolt maps it, a file whose damage it can see:
// empty, not bbolt at all, both meta pages bad, shorter than its meta says
// (truncated), or with a page structure that does not hold together (see
// pageWalk). bbolt trusts its pages: on such files it panics, faults, or —
// worse — allocates gigabytes and grows the file on the next write. The
// page structure is not walked when clean, the record of the file's last
// clean close, still holds (cleanclose.go); walked says whether it was.
//
// It reads under a shared lock (a writer elsewhere would make it see torn
// pages and call a healthy file damaged); release drops that lock, and is to
// be called once bbolt's read-only open holds its own.
func precheck(path string, timeout time.Duration, clean *cleanState) (release func(), walked bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, fmt.Errorf("open %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	if err := lockShared(f, timeout); errors.Is(err, errWouldBlock) {
		return nil, false, lockedError(path)
	} else if err != nil {
		return nil, false, fmt.Errorf("lock %s: %w", path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, false, fmt.Errorf("open %s: %w", path, err)
	}
	if walked, err = checkFile(path, f, fi, clean); err != nil {
		return nil, false, err
	}
	return func() { f.Close() }, walked, nil
}

// checkFile is precheck's look at the bytes: the meta pages and the size
// always, the page walk unless clean matches the file as it is now.
func checkFile(path string, f *os.File, fi os.FileInfo, clean *cleanState) (walked bool, err error) {
	m, err := readLiveMeta(path, f, fi.Size())
	if err != nil {
		return false, err
	}
	if clean != nil {
		if now, ok := stateOf(fi, m); ok && now == *clean {
			return false, nil
		}
	}
	w := pageWalk{r: chunkReader{f: f, buf: make([]byte, walkChunk)}, pageSize: uint64(m.pageSize), hwm: m.pgid, kind: make([]byte, m.pgid)}
	if err := guard("check the pages of "+path, func() error { return w.run(m.root, m.freelist) }); err != nil {
		return true, fmt.Errorf("%w: %s: %v", store.ErrCorrupt, path, err)
	}
	return true, nil
}

// readLiveMeta returns the meta page bbolt would use of the file f of size
// bytes, refusing with ErrCorrupt a file that is empty, not bbolt, of
// another format, with both meta pages damaged, an impossible page size, or
// shorter than its meta says.
func readLiveMeta(path string, f *os.File, size int64) (boltMeta, error) {
	bad := func(format string, args ...any) (boltMeta, error) {
		return boltMeta{}, fmt.Errorf("%w: %s: %s", store.ErrCorrupt, path, fmt.Sprintf(format, args...))
	}
	if size == 0 {
		return bad("the file is empty (0 bytes); a virgo database never is. Move it away to start a new one")
	}
	head := make([]byte, 2*(1<<16))
	n, _ := f.ReadAt(head, 0)
	data := head[:n]
	at := func(off int64) []byte {
		if off >= int64(len(data)) {
			return nil
		}
		return data[off:]
	}

	m0 := parseMeta(at(pageHeaderSize))
	pageSize := int64(os.Getpagesize())
	if m0.valid() {
		pageSize = int64(m0.pageSize)
	}
	m1 := parseMeta(at(pageSize + pageHeaderSize))
	m := m0
	if !m0.valid() || (m1.valid() && m1.txid > m0.txid) {
		m = m1
	}
	switch {
	case !m0.magicOK && !m1.magicOK:
		return bad("not a bbolt database (no bbolt header)")
	case m.magicOK && m.checksumOK && m.version != boltVersion:
		return bad("bbolt file format %d, this virgo-tui reads format %d", m.version, boltVersion)
	case !m.valid():
		return bad("both bbolt meta pages are damaged (checksum mismatch)")
	}
	ps := int64(m.pageSize)
	if ps < 512 || ps > 1<<16 || ps&(ps-1) != 0 {
		return bad("impossible page size %d", ps)
	}
	if m.pgid < 4 || m.pgid > uint64(size/ps) {
		return bad("truncated: the meta page says %d pages of %d bytes (%d bytes), the file has %d bytes", m.pgid, ps, m.pgid*uint64(ps), size)
	}
	return m, nil
}
