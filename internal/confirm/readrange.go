package confirm

import "fmt"

// MaxReadLength caps one ranged read, so that a large operational file is
// read in pages and never becomes unreadable (spec: "Reads support byte
// offset and length and return continuation metadata").
const MaxReadLength = 1 << 20

// Range is the continuation metadata of one ranged read: the bytes actually
// returned and where the next read starts.
type Range struct {
	Offset int64 `json:"offset"`
	Length int64 `json:"length"`
	// NextOffset is where the next page starts; equal to the size at EOF.
	NextOffset int64 `json:"next_offset"`
	// EOF is true when this page reaches the end of the file.
	EOF bool `json:"eof"`
}

// ReadRange computes the page workspace_read returns for a file of size
// bytes: from offset, at most length bytes (0 or more than MaxReadLength
// means MaxReadLength). An offset at the end yields an empty page with EOF;
// a negative offset or one past the end is ErrBadRange.
func ReadRange(size, offset, length int64) (Range, error) {
	if size < 0 || offset < 0 || length < 0 || offset > size {
		return Range{}, fmt.Errorf("read range offset %d length %d of %d bytes: %w", offset, length, size, ErrBadRange)
	}
	if length == 0 || length > MaxReadLength {
		length = MaxReadLength
	}
	n := min(length, size-offset)
	next := offset + n
	return Range{Offset: offset, Length: n, NextOffset: next, EOF: next == size}, nil
}
