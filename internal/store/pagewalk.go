package store

import (
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

// pageWalk checks the page structure of a bbolt file the way bbolt will read
// it: every page reachable from the root bucket (through branch pages and
// nested buckets) and the freelist lie below the high-water mark, are
// referenced once, have the expected type, and hold their elements, keys and
// values inside their own bytes; the freelist names only unused pages.
//
// It reads the trees level by level in page order through one buffer, so a
// walk of every live page is about one sequential read of the file (a walk
// through a memory map costs a page fault per page, ten times more).
type pageWalk struct {
	r        chunkReader
	pageSize uint64
	hwm      uint64
	seen     []bool
	next     []uint64 // pages of the level below the one being read
}

var le = binary.LittleEndian

// run walks the trees from the root bucket's page, then the freelist.
func (w *pageWalk) run(root, freelist uint64) error {
	for level := []uint64{root}; len(level) > 0; level = w.next {
		slices.Sort(level)
		w.next = nil
		last := 0 // the last page of the level within a buffer's reach
		for i, id := range level {
			last = max(last, i)
			for last+1 < len(level) && (level[last+1]-id+1)*w.pageSize <= walkChunk {
				last++
			}
			w.r.ahead = (level[last] - id + 1) * w.pageSize
			p, err := w.page(id)
			if err != nil {
				return err
			}
			if err := w.node(p, id); err != nil {
				return err
			}
		}
	}
	return w.freelist(freelist)
}

// page returns the bytes of page id and its overflow pages, marking them
// seen; they are valid until the next call.
func (w *pageWalk) page(id uint64) ([]byte, error) {
	if id < 2 || id >= w.hwm {
		return nil, fmt.Errorf("page %d referenced outside the file's %d pages", id, w.hwm)
	}
	hdr, err := w.r.bytes(id*w.pageSize, pageHeaderSize)
	if err != nil {
		return nil, err
	}
	overflow := uint64(le.Uint32(hdr[12:]))
	if overflow >= w.hwm-id {
		return nil, fmt.Errorf("page %d claims %d overflow pages past the file's end", id, overflow)
	}
	for p := id; p <= id+overflow; p++ {
		if w.seen[p] {
			return nil, fmt.Errorf("page %d is referenced twice", p)
		}
		w.seen[p] = true
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

// node checks one branch or leaf page (or an inline bucket's page, id 0),
// queueing the pages it references for the next level.
func (w *pageWalk) node(p []byte, id uint64) error {
	if len(p) < pageHeaderSize {
		return fmt.Errorf("page %d: shorter than a page header", id)
	}
	flags, count := le.Uint16(p[8:]), uint64(le.Uint16(p[10:]))
	if pageHeaderSize+count*elementSize > uint64(len(p)) {
		return fmt.Errorf("page %d: %d elements do not fit", id, count)
	}
	for i := uint64(0); i < count; i++ {
		off := pageHeaderSize + i*elementSize
		e := p[off:]
		switch flags {
		case branchPageFlag:
			pos, ksize := uint64(le.Uint32(e[0:])), uint64(le.Uint32(e[4:]))
			if off+pos+ksize > uint64(len(p)) {
				return fmt.Errorf("page %d: branch key %d outside the page", id, i)
			}
			w.next = append(w.next, le.Uint64(e[8:]))
		case leafPageFlag:
			eflags, pos := le.Uint32(e[0:]), uint64(le.Uint32(e[4:]))
			ksize, vsize := uint64(le.Uint32(e[8:])), uint64(le.Uint32(e[12:]))
			end := off + pos + ksize + vsize
			if end > uint64(len(p)) {
				return fmt.Errorf("page %d: leaf element %d outside the page", id, i)
			}
			if eflags&bucketLeafFlag != 0 {
				if err := w.bucket(p[end-vsize : end]); err != nil {
					return err
				}
			}
		default:
			return fmt.Errorf("page %d: a %#x page where a branch or leaf belongs", id, flags)
		}
	}
	if flags == branchPageFlag && count == 0 {
		return fmt.Errorf("page %d: an empty branch page", id)
	}
	return nil
}

// bucket checks a nested bucket: queues its root page, or checks its inline
// page (which lies inside v, so nesting ends with v's bytes).
func (w *pageWalk) bucket(v []byte) error {
	if len(v) < inBucketSize {
		return errors.New("a bucket value shorter than its header")
	}
	if root := le.Uint64(v); root != 0 {
		w.next = append(w.next, root)
		return nil
	}
	return w.node(v[inBucketSize:], 0)
}

// freelist checks that the freelist page holds its ids and names only pages
// below the high-water mark that no tree uses.
func (w *pageWalk) freelist(id uint64) error {
	if id == noFreelist {
		return nil
	}
	p, err := w.page(id)
	if err != nil {
		return err
	}
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
	for i := uint64(0); i < count; i++ {
		free := le.Uint64(p[head+i*8:])
		if free < 2 || free >= w.hwm || w.seen[free] {
			return fmt.Errorf("freelist names page %d, which is %s", free, w.usage(free))
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
