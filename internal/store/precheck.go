package store

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"os"
)

// What precheck knows of bbolt's on-disk format (bbolt v1.4, format version
// 2): every page starts with a 16-byte header (id, flags, count, overflow);
// pages 0 and 1 hold a meta record each, the valid one with the higher
// transaction id wins.
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
	m.checksumOK = h.Sum64() == le.Uint64(b[metaSumOffset:])
	return m
}

func (m boltMeta) valid() bool { return m.magicOK && m.version == boltVersion && m.checksumOK }

// precheck refuses, before bbolt maps it, a file whose damage is cheap to
// see: empty, not bbolt at all, both meta pages bad, shorter than its meta
// says (truncated), or with an impossible freelist page. bbolt would panic or
// fault on some of these; the rest it reports less clearly.
func precheck(path string, size int64) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrCorrupt, path, fmt.Sprintf(format, args...))
	}
	if size == 0 {
		return bad("the file is empty (0 bytes); a virgo database never is. Move it away to start a new one")
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	read := func(off int64, n int) []byte {
		buf := make([]byte, n)
		got, _ := f.ReadAt(buf, off)
		return buf[:got]
	}

	m0 := parseMeta(read(pageHeaderSize, metaSize))
	pageSize := int64(os.Getpagesize())
	if m0.valid() {
		pageSize = int64(m0.pageSize)
	}
	m1 := parseMeta(read(pageSize+pageHeaderSize, metaSize))
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
	if m.root < 2 || m.root >= m.pgid {
		return bad("root page %d outside the file's %d pages", m.root, m.pgid)
	}
	if m.freelist == noFreelist {
		return nil
	}
	if m.freelist < 2 || m.freelist >= m.pgid {
		return bad("freelist page %d outside the file's %d pages", m.freelist, m.pgid)
	}
	hdr := read(int64(m.freelist)*ps, pageHeaderSize+8)
	if len(hdr) < pageHeaderSize+8 {
		return bad("freelist page %d cut short", m.freelist)
	}
	le := binary.LittleEndian
	flags, count, overflow := le.Uint16(hdr[8:]), uint64(le.Uint16(hdr[10:])), uint64(le.Uint32(hdr[12:]))
	if flags != freelistPageFlag {
		return bad("page %d is not a freelist page (flags %#x)", m.freelist, flags)
	}
	head := uint64(pageHeaderSize)
	if count == 0xFFFF {
		count, head = le.Uint64(hdr[pageHeaderSize:]), head+8
	}
	span := (overflow + 1) * uint64(ps)
	if m.freelist+overflow >= m.pgid || count > (span-head)/8 {
		return bad("freelist page %d claims %d entries over %d pages", m.freelist, count, overflow+1)
	}
	return nil
}
