package store

import (
	"fmt"
	"os"

	bolt "go.etcd.io/bbolt"
)

// Zero-filled growth. bbolt grows its file by truncating it longer, so the
// new pages are a hole: the first commit that writes one makes the file
// system allocate its block, and that commit's fdatasync must then commit
// the allocation to the journal as well — on this project's ext4 disk an
// fdatasync of a page written into a hole costs about twice one over
// written bytes. So after a commit that grew the file, the commit leader
// writes zeros over the pages past bbolt's high-water mark and syncs them,
// once per growth (by growStep at a time once past growStep), and
// later commits overwrite blocks the file already has.
//
// bbolt's own step is 16 MiB (bolt.DefaultAllocSize): up to 16 MiB of every
// file was tail, a third of a 50 MB goal. The store grows by growStep
// instead: eight times as many growths, each filling an eighth of the
// zeros, and a tail of at most 2 MiB (at 4 MiB, a 10,000-persona file's
// size swung by 3 MiB with where its last growth fell).
//
// Pages at or past the high-water mark are unused: bbolt neither reads them
// nor writes them outside a commit, and only the commit leader commits, so
// the zeros never meet a page in use. The page check at open never looks
// past the high-water mark either.

// growStep is how much a file past growStep grows at a time (bbolt's
// DB.AllocSize; a smaller file grows to its memory map's size, a power of
// two).
const growStep = 2 << 20

// filler writes zeros over the database file's unused tail; a nil filler
// leaves the tail to bbolt.
type filler struct {
	f *os.File // a write descriptor of the database file
	// to is how far the file is known to have no hole: every page below
	// the high-water mark has been written by bbolt, the tail by fill.
	to int64
}

// fillChunk is the size of one zero write.
const fillChunk = 1 << 20

var zeros = make([]byte, fillChunk)

func openFiller(path string) (*filler, error) {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("open database %s for its zero fill: %w", path, err)
	}
	return &filler{f: f}, nil
}

// fill writes zeros over the file past its high-water mark if the file grew
// since the last fill, and syncs them. It runs between commits. A failed
// fill is not retried and not reported: it costs later commits the block
// allocation they always paid, it loses nothing.
func (z *filler) fill(db *bolt.DB) {
	if z == nil {
		return
	}
	fi, err := z.f.Stat()
	if err != nil || fi.Size() <= z.to {
		return
	}
	size := fi.Size()
	var hwm int64
	if err := guard("read the high-water mark", func() error {
		return db.View(func(tx *bolt.Tx) error { hwm = tx.Size(); return nil })
	}); err != nil {
		return
	}
	from := max(hwm, z.to)
	z.to = size
	for off := from; off < size; off += fillChunk {
		n := min(fillChunk, size-off)
		if _, err := z.f.WriteAt(zeros[:n], off); err != nil {
			return
		}
	}
	z.f.Sync()
}

func (z *filler) close() {
	if z != nil {
		z.f.Close()
	}
}
