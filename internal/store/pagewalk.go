package store

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Page flags and element sizes of bbolt's format (see precheck.go).
const (
	branchPageFlag = 0x01
	leafPageFlag   = 0x02
	bucketLeafFlag = 0x01
	elementSize    = 16 // branch: pos, ksize, pgid; leaf: flags, pos, ksize, vsize
	inBucketSize   = 16 // a bucket value: root page id, sequence; inline page after
	maxTreeDepth   = 64
)

// pageWalk checks the page structure of a bbolt file the way bbolt will read
// it: every page reachable from the root bucket (through branch pages and
// nested buckets) and the freelist lie below the high-water mark, are
// referenced once, have the expected type, and hold their elements, keys and
// values inside their own bytes; the freelist names only unused pages. It
// reads every live page once, about a millisecond for 10,000 keys.
type pageWalk struct {
	data     []byte
	pageSize uint64
	hwm      uint64
	seen     []bool
}

var le = binary.LittleEndian

// page returns the bytes of page id and its overflow pages, marking them seen.
func (w *pageWalk) page(id uint64) ([]byte, error) {
	if id < 2 || id >= w.hwm {
		return nil, fmt.Errorf("page %d referenced outside the file's %d pages", id, w.hwm)
	}
	hdr := w.data[id*w.pageSize:]
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
	return w.data[id*w.pageSize : (id+overflow+1)*w.pageSize], nil
}

// tree checks the B+tree rooted at page id.
func (w *pageWalk) tree(id uint64, depth int) error {
	if depth > maxTreeDepth {
		return fmt.Errorf("page %d: tree deeper than %d", id, maxTreeDepth)
	}
	p, err := w.page(id)
	if err != nil {
		return err
	}
	return w.node(p, id, depth)
}

// node checks one branch or leaf page (or an inline bucket's page, id 0).
func (w *pageWalk) node(p []byte, id uint64, depth int) error {
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
			if err := w.tree(le.Uint64(e[8:]), depth+1); err != nil {
				return err
			}
		case leafPageFlag:
			eflags, pos := le.Uint32(e[0:]), uint64(le.Uint32(e[4:]))
			ksize, vsize := uint64(le.Uint32(e[8:])), uint64(le.Uint32(e[12:]))
			end := off + pos + ksize + vsize
			if end > uint64(len(p)) {
				return fmt.Errorf("page %d: leaf element %d outside the page", id, i)
			}
			if eflags&bucketLeafFlag != 0 {
				if err := w.bucket(p[end-vsize:end], depth+1); err != nil {
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

// bucket checks a nested bucket: its root page, or its inline page.
func (w *pageWalk) bucket(v []byte, depth int) error {
	if len(v) < inBucketSize {
		return errors.New("a bucket value shorter than its header")
	}
	if root := le.Uint64(v); root != 0 {
		return w.tree(root, depth)
	}
	if depth > maxTreeDepth {
		return fmt.Errorf("inline buckets nested deeper than %d", maxTreeDepth)
	}
	return w.node(v[inBucketSize:], 0, depth)
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
	if count == 0xFFFF {
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
