// Package flatedict compresses short texts that repeat one another — a
// confirmation's class-matrix diff, a capability stamp — against a frozen
// preset dictionary (DEFLATE, RFC 1951, with the dictionary as the stream's
// history): a text is stored as the few bytes by which it differs from what
// the dictionary already says. A packed text starts with its format byte,
// which names the dictionary; a dictionary is never edited, a better one is
// a new format byte beside it.
package flatedict

import (
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"io"
	"sync"
)

// ErrDamaged: a packed text does not expand — an unknown format byte or a
// broken stream. Callers wrap it in their own damage error.
var ErrDamaged = errors.New("compressed text does not expand")

// ErrTooLarge: a packed text expands past the codec's bound. Expansion stops
// at the bound + 1 byte, so a small stream never takes more memory.
var ErrTooLarge = errors.New("compressed text expands past its bound")

// A Codec packs and expands texts against one dictionary. It is safe for
// concurrent use.
type Codec struct {
	format byte
	dict   []byte
	max    int

	// A DEFLATE writer is about 700 kB of state (its hash tables), and
	// allocating one per text made a registration allocate megabytes.
	// Texts are written rarely (a registration, an activation queued or
	// decided) and compressing one takes tens of microseconds: one writer,
	// made on first use and taken in turn, serves them all.
	mu sync.Mutex
	w  *flate.Writer

	// A reader is about 40 kB; a list expands many texts. A few are kept
	// for reuse (a sync.Pool would drop them at every collection); a
	// reader beyond them is made and left to the collector.
	readers chan io.ReadCloser
}

// New is the codec of format, whose texts expand to at most max bytes,
// against dict (at most 32 KiB of it is used: DEFLATE's window).
func New(format byte, dict []byte, max int) *Codec {
	return &Codec{format: format, dict: dict, max: max, readers: make(chan io.ReadCloser, 4)}
}

// Pack is text as stored: the format byte, then the DEFLATE stream. It is
// nil when text is longer than the bound or packing does not make it
// smaller: the caller stores it as it is.
func (c *Codec) Pack(text []byte) []byte {
	if len(text) > c.max {
		return nil
	}
	var b bytes.Buffer
	b.WriteByte(c.format)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.w == nil {
		// Only an invalid level fails, and DefaultCompression is valid.
		c.w, _ = flate.NewWriterDict(&b, flate.DefaultCompression, c.dict)
	} else {
		c.w.Reset(&b) // keeps the dictionary
	}
	_, _ = c.w.Write(text) // writes to a bytes.Buffer cannot fail
	_ = c.w.Close()
	if b.Len() >= len(text) {
		return nil
	}
	return b.Bytes()
}

// Unpack expands a packed text: ErrDamaged when its format byte is not
// this codec's or its stream is broken, ErrTooLarge past the bound.
func (c *Codec) Unpack(z []byte) ([]byte, error) {
	if len(z) == 0 || z[0] != c.format {
		return nil, fmt.Errorf("%w (format %v, want %d)", ErrDamaged, z[:min(len(z), 1)], c.format)
	}
	var r io.ReadCloser
	select {
	case r = <-c.readers:
		if err := r.(flate.Resetter).Reset(bytes.NewReader(z[1:]), c.dict); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrDamaged, err)
		}
	default:
		r = flate.NewReaderDict(bytes.NewReader(z[1:]), c.dict)
	}
	defer func() {
		select {
		case c.readers <- r:
		default:
		}
	}()
	text, err := io.ReadAll(io.LimitReader(r, int64(c.max)+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDamaged, err)
	}
	if len(text) > c.max {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, c.max)
	}
	return text, nil
}
