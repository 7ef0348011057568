// Package private opens and creates the owner-private files and directories
// of an installation home (tokens, the hub's run directory, persona
// directories) without trusting what is on disk. Anyone who can write into a
// home could plant a symbolic link to someone else's file, a world-writable
// directory, or a token owned by another user; so nothing here follows a
// link, and every directory and secret file must belong to the running user
// with no group or other permissions. What fails the check is refused with
// its path and the fix — never repaired by a chmod that could reach through
// a link.
package private

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ErrUnsafe is a home path refused because it is a link, is not the kind of
// file expected, belongs to another user, or is open to group or others.
var ErrUnsafe = errors.New("unsafe path in the home")

// ErrTooLarge is a home file over the size its reader allows: not a file
// this tool wrote (a link to a sparse file or a device is refused before
// its size matters).
var ErrTooLarge = errors.New("home file is over its size limit")

// MaxFile bounds what ReadFile reads: secret files are a few lines.
const MaxFile = 64 << 10

// check refuses fi unless it is a directory (dir) or regular file owned by
// the running user with no group or other permission bits.
func check(path string, fi fs.FileInfo, dir bool) error {
	if err := checkKindAndOwner(path, fi, dir); err != nil {
		return err
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		want := "600"
		if dir {
			want = "700"
		}
		return fmt.Errorf("%w: %s is mode %04o (group or others may use it): run chmod %s %s", ErrUnsafe, path, perm, want, path)
	}
	return nil
}

// checkKindAndOwner refuses a link, the wrong kind of file, or another
// user's file.
func checkKindAndOwner(path string, fi fs.FileInfo, dir bool) error {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return RefuseLink(path)
	case dir && !fi.IsDir():
		return fmt.Errorf("%w: %s is not a directory: move it away and run again", ErrUnsafe, path)
	case !dir && !fi.Mode().IsRegular():
		return fmt.Errorf("%w: %s is not a regular file: remove it and run again", ErrUnsafe, path)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%w: %s is owned by uid %d, not by you (uid %d): a home's files must be yours; remove it or run as its owner", ErrUnsafe, path, st.Uid, os.Geteuid())
	}
	return nil
}

// Dir makes sure dir is a private directory: it is created 0700 when missing
// (its parent must exist), and an existing one must be a real directory of
// the running user's with no group or other permissions.
func Dir(dir string) error {
	err := os.Mkdir(dir, 0o700)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("check %s: %w", dir, err)
	}
	return check(dir, fi, true)
}

// CheckDir checks an existing directory the way Dir does, creating nothing.
func CheckDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("check %s: %w", dir, err)
	}
	return check(dir, fi, true)
}

// ReadFile reads a secret file, opened without following a link; it must be
// a regular file of the running user's with no group or other permissions,
// and at most MaxFile bytes. A missing file is fs.ErrNotExist.
func ReadFile(path string) ([]byte, error) { return ReadFileMax(path, MaxFile) }

// ReadFileMax is ReadFile with another size limit (a stamp's): the file is
// opened without following a link and without blocking, checked by fstat
// on what was opened, and refused by its size before a byte is read
// (ErrTooLarge).
func ReadFileMax(path string, limit int) ([]byte, error) {
	f, err := openNoFollow(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("check %s: %w", path, err)
	}
	if err := check(path, fi, false); err != nil {
		return nil, err
	}
	if fi.Size() > int64(limit) {
		return nil, tooLarge(path, limit)
	}
	b, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(b) > limit { // it grew since the fstat
		return nil, tooLarge(path, limit)
	}
	return b, nil
}

// tooLarge is the refusal of a home file over limit bytes.
func tooLarge(path string, limit int) error {
	return fmt.Errorf("%w: %w: %s is larger than %d bytes; it is not a file this tool wrote", ErrUnsafe, ErrTooLarge, path, limit)
}

// Create writes a new secret file 0600 with data, synced, failing with
// fs.ErrExist when path exists (a link included: nothing is followed). The
// bytes are written aside and linked into place, so a reader never sees the
// file half written.
func Create(path string, data []byte) error {
	return writeAside(path, data, os.Link, "create")
}

// Replace writes a private file 0600 with data, synced, in place of what
// path holds (a link at path is replaced, never followed): the bytes are
// written aside and renamed into place, so a reader sees the old file or
// the new one, never half of either.
func Replace(path string, data []byte) error {
	return writeAside(path, data, os.Rename, "write")
}

// writeAside writes data 0600 to a new file beside path, syncs it, and
// puts it at path with place (a link or a rename).
func writeAside(path string, data []byte, place func(from, to string) error, verb string) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".new-*")
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := place(f.Name(), path); err != nil {
		return fmt.Errorf("%s %s: %w", verb, path, err)
	}
	return nil
}

// Home checks an installation's home directory, creating it 0700 when
// missing. The home itself may be reached through a link (a data volume
// mounted elsewhere), but it must be a directory of the running user's that
// group and others cannot write; everything below it is checked without
// following links.
func Home(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create home %s: %w", dir, err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("check home %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%w: home %s is not a directory", ErrUnsafe, dir)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%w: home %s is owned by uid %d, not by you (uid %d): use a home of your own (--home)", ErrUnsafe, dir, st.Uid, os.Geteuid())
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%w: home %s is mode %04o (group or others may write in it): run chmod 700 %s", ErrUnsafe, dir, fi.Mode().Perm(), dir)
	}
	return nil
}

// Tighten strips group and other permissions from an existing file or
// directory of the running user's, through a descriptor opened without
// following links: a link planted at path is refused, never chmod-ed
// through (its target could be anyone's file).
func Tighten(path string) error {
	f, err := openNoFollow(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("check %s: %w", path, err)
	}
	if err := checkKindAndOwner(path, fi, fi.IsDir()); err != nil {
		return err
	}
	perm := fi.Mode().Perm()
	if perm&0o077 == 0 {
		return nil
	}
	if err := f.Chmod(perm &^ 0o077); err != nil {
		return fmt.Errorf("make %s private: %w", path, err)
	}
	return nil
}

// openNoFollow opens path read-only without following a link at its last
// element (a link is refused by name) and without blocking on a FIFO.
func openNoFollow(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, RefuseLink(path)
	}
	return f, err
}

// RefuseLink is the refusal of a link found where a home's file belongs.
func RefuseLink(path string) error {
	return fmt.Errorf("%w: %s is a symbolic link; a home's files are never followed through links: remove it (rm %s) and run again", ErrUnsafe, path, path)
}
