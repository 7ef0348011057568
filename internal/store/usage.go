package store

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"
)

// Usage is what a database file's pages hold, so that the bytes the file
// takes can be traced to the records that take them: the live bytes of
// each key range, the leaf pages they fill, and the pages nothing uses.
type Usage struct {
	FileBytes int64 `json:"file_bytes"` // the file's size
	PageSize  int   `json:"page_size"`
	// Pages is bbolt's high-water mark: the pages below it are in use or
	// free; the file past it (TailBytes) is grown ahead of need.
	Pages         uint64       `json:"pages"`
	TailBytes     int64        `json:"tail_bytes"`
	MetaPages     uint64       `json:"meta_pages"`     // the two meta pages
	FreelistPages uint64       `json:"freelist_pages"` // the freelist page and its overflow
	FreePages     uint64       `json:"free_pages"`     // pages on the freelist
	BranchPages   uint64       `json:"branch_pages"`   // every bucket's branch pages
	Ranges        []RangeUsage `json:"ranges"`
}

// RangeUsage is one key range of one bucket: in virgo.kv a key prefix (the
// key's first segment, and its second when that is a word, as in
// "confirm/req/"); every other bucket is one range, and the tree that holds
// the buckets themselves is the range of bucket "".
type RangeUsage struct {
	Bucket     string `json:"bucket"`
	Prefix     string `json:"prefix"`
	Records    int64  `json:"records"`
	KeyBytes   int64  `json:"key_bytes"`
	ValueBytes int64  `json:"value_bytes"`
	// LeafPages are the leaf pages (with their overflow) the range
	// occupies; a page shared by ranges counts to each in proportion to
	// the bytes it holds of each.
	LeafPages float64 `json:"leaf_pages"`
}

// LiveBytes is what the range's records take in its leaf pages: keys,
// values and bbolt's element header of each.
func (r RangeUsage) LiveBytes() int64 {
	return r.KeyBytes + r.ValueBytes + r.Records*elementSize
}

// FileUsage walks the database file at path once and says what its pages
// hold (see Usage). It reads the file as the pre-open check does, under a
// shared lock, and so waits up to timeout (DefaultTimeout when 0) for a
// process that holds the file for writing — a running hub holds it until
// it stops. A file whose pages do not hold together is ErrCorrupt.
func FileUsage(path string, timeout time.Duration) (Usage, error) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	f, err := os.Open(path)
	if err != nil {
		return Usage{}, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	if err := lockShared(f, timeout); errors.Is(err, errWouldBlock) {
		return Usage{}, lockedError(path)
	} else if err != nil {
		return Usage{}, fmt.Errorf("lock %s: %w", path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		return Usage{}, fmt.Errorf("open %s: %w", path, err)
	}
	m, err := readLiveMeta(path, f, fi.Size())
	if err != nil {
		return Usage{}, err
	}
	t := &usageTally{ranges: map[[2]string]*RangeUsage{}}
	w := pageWalk{r: chunkReader{f: f, buf: make([]byte, walkChunk)}, pageSize: uint64(m.pageSize), hwm: m.pgid,
		kind: make([]byte, m.pgid), tally: t}
	if err := guard("walk the pages of "+path, func() error { return w.run(m.root, m.freelist) }); err != nil {
		return Usage{}, fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
	}
	u := Usage{FileBytes: fi.Size(), PageSize: int(m.pageSize), Pages: m.pgid, MetaPages: 2,
		TailBytes: fi.Size() - int64(m.pgid)*int64(m.pageSize), BranchPages: t.branches}
	for _, k := range w.kind {
		if k == pageFree {
			u.FreePages++
		}
	}
	// Every other page is a tree's or the freelist's (with its overflow).
	var leaves float64
	for _, r := range t.ranges {
		u.Ranges = append(u.Ranges, *r)
		leaves += r.LeafPages
	}
	u.FreelistPages = u.Pages - u.MetaPages - u.FreePages - u.BranchPages - uint64(leaves+0.5)
	slices.SortFunc(u.Ranges, func(a, b RangeUsage) int {
		return cmp.Or(cmp.Compare(b.LeafPages, a.LeafPages), cmp.Compare(a.Bucket, b.Bucket), cmp.Compare(a.Prefix, b.Prefix))
	})
	return u, nil
}

// usageTally counts what the page walk finds in each tree page.
type usageTally struct {
	ranges   map[[2]string]*RangeUsage
	branches uint64
	// onPage are the ranges of the page being read and their bytes there.
	onPage []pageShare
}

type pageShare struct {
	r     *RangeUsage
	bytes uint64
}

// element counts one record of bucket in the page being read.
func (t *usageTally) element(bucket string, key []byte, vsize uint64) {
	if t == nil {
		return
	}
	r := t.rangeOf(bucket, rangePrefix(bucket, key))
	r.Records++
	r.KeyBytes += int64(len(key))
	r.ValueBytes += int64(vsize)
	n := elementSize + uint64(len(key)) + vsize
	if i := len(t.onPage) - 1; i >= 0 && t.onPage[i].r == r {
		t.onPage[i].bytes += n
		return
	}
	t.onPage = append(t.onPage, pageShare{r: r, bytes: n})
}

// page ends a page of bucket spanning span pages (0: an inline bucket,
// which takes no page of its own), and shares its leaf pages among the
// ranges it held.
func (t *usageTally) page(bucket string, branch bool, span uint64) {
	if t == nil {
		return
	}
	defer func() { t.onPage = t.onPage[:0] }()
	if branch {
		t.branches += span
		return
	}
	var total uint64
	for _, s := range t.onPage {
		total += s.bytes
	}
	if total == 0 {
		if span > 0 {
			t.rangeOf(bucket, "").LeafPages += float64(span)
		}
		return
	}
	for _, s := range t.onPage {
		s.r.LeafPages += float64(span) * float64(s.bytes) / float64(total)
	}
}

func (t *usageTally) rangeOf(bucket, prefix string) *RangeUsage {
	k := [2]string{bucket, prefix}
	r := t.ranges[k]
	if r == nil {
		r = &RangeUsage{Bucket: bucket, Prefix: prefix}
		t.ranges[k] = r
	}
	return r
}

// rangePrefix is the key range a key of bucket counts to: in virgo.kv its
// first segment with the slash, and the second too when it is a word of
// lower-case letters and hyphens ("confirm/req/", "prompts/class/", but
// "audit/" for "audit/<time>/…"); every other bucket is one range.
func rangePrefix(bucket string, key []byte) string {
	if bucket != string(bucketKV) {
		return ""
	}
	first := slices.Index(key, '/')
	if first < 0 {
		return string(key)
	}
	rest := key[first+1:]
	second := slices.Index(rest, '/')
	if second <= 0 {
		return string(key[:first+1])
	}
	for _, c := range rest[:second] {
		if (c < 'a' || c > 'z') && c != '-' {
			return string(key[:first+1])
		}
	}
	return string(key[:first+1+second+1])
}
