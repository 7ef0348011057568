package stamp

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/virgo-hub/virgo-tui/internal/private"
)

// ReadFile reads a stamp file an operator names (`stamp validate FILE`):
// opened without blocking, it must be a regular file of at most MaxBytes,
// refused by its fstat before a byte is read — /dev/zero, a FIFO or a link
// to a 1 GiB sparse file is ErrStampUnreadable or ErrStampTooLarge at
// once, not a read that never ends. A link the operator named is followed:
// the path is theirs to choose.
func ReadFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, fmt.Errorf("read stamp: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", path, ErrStampUnreadable, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w: it is a %s, not a regular file", path, ErrStampUnreadable, fi.Mode().Type())
	}
	if fi.Size() > MaxBytes {
		return nil, tooLarge(path, fi.Size())
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", path, ErrStampUnreadable, err)
	}
	if len(b) > MaxBytes { // it grew since the fstat
		return nil, tooLarge(path, int64(len(b)))
	}
	return b, nil
}

// ReadCopy reads this host's copy of a generation's stamp in the home
// (personas/<id>/CAPABILITY-STAMP.json), the hub's own read: the
// generation directory must be private (0700, yours, not a link) and the
// file a regular file of yours, 0600, not a link, at most MaxBytes
// (internal/private). A missing file is ErrStampMissing; anything else
// wrong with it is ErrStampUnreadable or ErrStampTooLarge, naming the fix.
func ReadCopy(path string) ([]byte, error) {
	// The private refusal is told (%v), not wrapped: the stamp's code is
	// the one answered.
	if err := private.CheckDir(filepath.Dir(path)); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", path, ErrStampUnreadable, err)
	}
	b, err := private.ReadFileMax(path, MaxBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: %w", path, ErrStampMissing)
	case errors.Is(err, private.ErrTooLarge):
		return nil, fmt.Errorf("%w: %v", ErrStampTooLarge, err)
	case err != nil:
		return nil, fmt.Errorf("%s: %w: %v", path, ErrStampUnreadable, err)
	}
	return b, nil
}

// tooLarge is the refusal of a stamp file of size bytes.
func tooLarge(path string, size int64) error {
	return fmt.Errorf("%s: %w: %d bytes, the limit is %d", path, ErrStampTooLarge, size, MaxBytes)
}
