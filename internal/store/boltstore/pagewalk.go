package boltstore

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
)

// Page flags and element sizes of bbolt's format (see precheck.go).
const (
	branchPageFlag = 0x01
	leafPageFlag   = 0x02
	bucketLeafFlag = 0x01
	elementSize    = 16 // branch: pos, ksize, pgid; leaf: flags, pos, ksize, vsize
	inBucketSize   = 16 // a bucket value: root page id, sequence; inline page after
	walkChunk      = 1 << 20
)

// What the walk found a page to be; pageFree and the tree kinds are what
// the format pin test compares with bbolt's own view of each page.
const (
	pageUnseen byte = iota
	pageBranch
	pageLeaf
	pageOverflow // a continuation page of a branch, leaf or freelist
	pageFreelist
	pageFree
)

// pageWalk checks the page structure of a bbolt file the way `bbolt check`
// does and a little further, so that damage is refused before bbolt serves
// it: every page reachable from the root bucket (through branch pages and
// buckets) and the freelist lies below the high-water mark, carries its own
// id and the type its parent expects, is referenced once, and holds its
// elements packed in order inside its own bytes (as bbolt writes them, so a
// changed element count or size shows); keys ascend within a page and stay
// within the range their parent branch gives them; the freelist names, in
// ascending order, only pages no tree uses; and every other page is free.
// Buckets sit only in the root bucket's tree: the virgo layout (three
// top-level buckets) nests none, so a value whose bucket flag flipped is
// damage, not a bucket bbolt would then hide.
//
// It reads the trees level by level in page order through one buffer, so a
// walk of every live page is about one sequential read of the file. bbolt's
// own Tx.Check reads the same pages faster, through the map, but cannot
// take its place: it runs in a goroutine of its own, where the fault of a
// damaged page kills the process, and only once bbolt has mapped the file
// (TestTheWalkStandsWhereTxCheckCannot, BenchmarkPageCheck10k).
type pageWalk struct {
	r        chunkReader
	pageSize uint64
	hwm      uint64
	kind     []byte // what each page below hwm turned out to be
	next     []ref  // pages of the level below the one being read
	keys     []byte // copies of the bounds in next, outliving the read buffer
}

// ref is a page to visit: its id, the key range [lo, hi) its keys must lie
// in (nil: unbounded), and whether it is part of the root bucket's tree.
type ref struct {
	id     uint64
	lo, hi []byte
	root   bool
}

var le = binary.LittleEndian

// run walks the trees from the root bucket's page, then the freelist.
func (w *pageWalk) run(root, freelist uint64) error {
	for level := []ref{{id: root, root: true}}; len(level) > 0; level = w.next {
		slices.SortFunc(level, func(a, b ref) int { return cmp.Compare(a.id, b.id) })
		w.next, w.keys = nil, nil
		last := 0 // the last page of the level within a buffer's reach
		for i, r := range level {
			last = max(last, i)
			for last+1 < len(level) && (level[last+1].id-r.id+1)*w.pageSize <= walkChunk {
				last++
			}
			w.r.ahead = (level[last].id - r.id + 1) * w.pageSize
			p, err := w.page(r.id)
			if err != nil {
				return err
			}
			if err := w.node(p, r); err != nil {
				return err
			}
		}
	}
	return w.freelist(freelist)
}

// page returns the bytes of page id and its overflow pages, checking that
// the page names itself and marking them reached; they are valid until the
// next call.
func (w *pageWalk) page(id uint64) ([]byte, error) {
	if id < 2 || id >= w.hwm {
		return nil, fmt.Errorf("page %d referenced outside the file's %d pages", id, w.hwm)
	}
	hdr, err := w.r.bytes(id*w.pageSize, pageHeaderSize)
	if err != nil {
		return nil, err
	}
	if own := le.Uint64(hdr); own != id {
		return nil, fmt.Errorf("page %d carries the id %d (a page written elsewhere, or damaged)", id, own)
	}
	overflow := uint64(le.Uint32(hdr[12:]))
	if overflow >= w.hwm-id {
		return nil, fmt.Errorf("page %d claims %d overflow pages past the file's end", id, overflow)
	}
	for p := id; p <= id+overflow; p++ {
		if w.kind[p] != pageUnseen {
			return nil, fmt.Errorf("page %d is referenced twice", p)
		}
		w.kind[p] = pageOverflow
	}
	return w.r.bytes(id*w.pageSize, (overflow+1)*w.pageSize)
}

// chunkReader serves byte ranges of a file from one reused buffer. On a miss
// it reads ahead bytes (set by the walker to reach the level's next pages
// within a buffer), so sparse pages cost a page each, dense ones a buffer.
type chunkReader struct {
	f     io.ReaderAt
	buf   []byte
	off   uint64
	n     uint64
	ahead uint64
}

func (c *chunkReader) bytes(off, n uint64) ([]byte, error) {
	if off >= c.off && off+n <= c.off+c.n {
		return c.buf[off-c.off : off-c.off+n], nil
	}
	buf := c.buf
	if n > uint64(len(buf)) {
		buf = make([]byte, n)
	}
	if want := max(n, c.ahead); want < uint64(len(buf)) {
		buf = buf[:want]
	}
	got, err := c.f.ReadAt(buf, int64(off))
	if uint64(got) < n {
		return nil, fmt.Errorf("page at byte %d cut short: %v", off, err)
	}
	if &buf[0] == &c.buf[0] {
		c.off, c.n = off, uint64(got)
	}
	return buf[:n], nil
}

// node checks one branch or leaf page, or an inline bucket's page (r.id 0,
// p exactly its bytes), queueing the pages it references for the next level.
func (w *pageWalk) node(p []byte, r ref) error {
	id := r.id
	if len(p) < pageHeaderSize {
		return fmt.Errorf("page %d: shorter than a page header", id)
	}
	flags, count := le.Uint16(p[8:]), uint64(le.Uint16(p[10:]))
	if flags != branchPageFlag && flags != leafPageFlag {
		return fmt.Errorf("page %d: a %#x page where a branch or leaf belongs", id, flags)
	}
	if id != 0 {
		kind := pageLeaf
		if flags == branchPageFlag {
			kind = pageBranch
		}
		w.kind[id] = kind
	} else if own := le.Uint64(p); own != 0 {
		return fmt.Errorf("an inline bucket page carries the id %d, not 0", own)
	}
	if flags == branchPageFlag && count == 0 {
		return fmt.Errorf("page %d: an empty branch page", id)
	}
	// bbolt writes the elements, then their keys and values in the same
	// order right behind them: data is where the next one must start.
	data := pageHeaderSize + count*elementSize
	if data > uint64(len(p)) {
		return fmt.Errorf("page %d: %d elements do not fit", id, count)
	}
	var prev []byte
	for i := uint64(0); i < count; i++ {
		off := pageHeaderSize + i*elementSize
		e := p[off:]
		var ksize, vsize uint64
		if flags == branchPageFlag {
			ksize = uint64(le.Uint32(e[4:]))
		} else {
			ksize, vsize = uint64(le.Uint32(e[8:])), uint64(le.Uint32(e[12:]))
		}
		pos := uint64(le.Uint32(e[4:]))
		if flags == branchPageFlag {
			pos = uint64(le.Uint32(e[0:]))
		}
		if off+pos != data {
			return fmt.Errorf("page %d: element %d's data is not where the one before it ends", id, i)
		}
		end := data + ksize + vsize
		if ksize == 0 || end > uint64(len(p)) {
			return fmt.Errorf("page %d: element %d outside the page", id, i)
		}
		key := p[data : data+ksize]
		switch {
		case prev != nil && bytes.Compare(key, prev) <= 0:
			return fmt.Errorf("page %d: key %d is not above the key before it", id, i)
		case r.lo != nil && bytes.Compare(key, r.lo) < 0, r.hi != nil && bytes.Compare(key, r.hi) >= 0:
			return fmt.Errorf("page %d: key %d lies outside the range its parent gives the page", id, i)
		}
		prev = key
		data = end
		if flags == branchPageFlag {
			child := ref{id: le.Uint64(e[8:]), lo: w.keep(key), hi: r.hi, root: r.root}
			if i+1 < count {
				// The next element's key bounds this child; its data
				// is checked when the loop reaches it.
				n := p[off+elementSize:]
				npos, nk := uint64(le.Uint32(n[0:])), uint64(le.Uint32(n[4:]))
				if off+elementSize+npos == data && data+nk <= uint64(len(p)) {
					child.hi = w.keep(p[data : data+nk])
				}
			}
			w.next = append(w.next, child)
			continue
		}
		if le.Uint32(e[0:])&bucketLeafFlag == 0 {
			continue
		}
		if !r.root {
			return fmt.Errorf("page %d: element %d is marked as a bucket inside a bucket, which the virgo layout never nests", id, i)
		}
		if err := w.bucket(p[end-vsize : end]); err != nil {
			return fmt.Errorf("page %d: bucket %q: %w", id, key, err)
		}
	}
	switch {
	case id == 0 && data != uint64(len(p)):
		return fmt.Errorf("an inline bucket page of %d bytes holds %d", len(p), data)
	case id != 0 && uint64(len(p)) > w.pageSize && data <= uint64(len(p))-w.pageSize:
		return fmt.Errorf("page %d: %d overflow pages for %d bytes", id, uint64(len(p))/w.pageSize-1, data)
	}
	return nil
}

// keep copies a bound key into w.keys. Earlier copies stay valid when the
// slice grows: they keep the array they were made in.
func (w *pageWalk) keep(key []byte) []byte {
	start := len(w.keys)
	w.keys = append(w.keys, key...)
	return w.keys[start:len(w.keys):len(w.keys)]
}

// bucket checks a bucket's value: queues its root page, or checks its
// inline page (which lies inside v, so nesting ends with v's bytes).
func (w *pageWalk) bucket(v []byte) error {
	if len(v) < inBucketSize {
		return errors.New("a bucket value shorter than its header")
	}
	if root := le.Uint64(v); root != 0 {
		w.next = append(w.next, ref{id: root})
		return nil
	}
	return w.node(v[inBucketSize:], ref{})
}

// freelist checks that the freelist page names, in ascending order, only
// pages below the high-water mark that no tree uses, and that every other
// page is in use.
func (w *pageWalk) freelist(id uint64) error {
	if id == noFreelist {
		return nil
	}
	p, err := w.page(id)
	if err != nil {
		return err
	}
	w.kind[id] = pageFreelist
	if flags := le.Uint16(p[8:]); flags != freelistPageFlag {
		return fmt.Errorf("page %d: a %#x page where the freelist belongs", id, flags)
	}
	head, count := uint64(pageHeaderSize), uint64(le.Uint16(p[10:]))
	if count == 0xFFFF && len(p) >= pageHeaderSize+8 {
		count, head = le.Uint64(p[pageHeaderSize:]), head+8
	}
	if count > (uint64(len(p))-head)/8 {
		return fmt.Errorf("freelist page %d claims %d entries", id, count)
	}
	var prev uint64
	for i := uint64(0); i < count; i++ {
		free := le.Uint64(p[head+i*8:])
		if free < 2 || free >= w.hwm || w.kind[free] != pageUnseen {
			return fmt.Errorf("freelist names page %d, which is %s", free, w.usage(free))
		}
		if free <= prev {
			return fmt.Errorf("freelist page %d: entry %d is not above the one before it", id, i)
		}
		w.kind[free], prev = pageFree, free
	}
	for p := uint64(2); p < w.hwm; p++ {
		if w.kind[p] == pageUnseen {
			return fmt.Errorf("page %d is neither reachable nor free", p)
		}
	}
	return nil
}

func (w *pageWalk) usage(id uint64) string {
	if id < 2 || id >= w.hwm {
		return "outside the data pages"
	}
	return "in use"
}
