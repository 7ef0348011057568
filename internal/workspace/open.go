package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
)

// MaxHashed is the largest file workspace_hash streams through sha256: a
// persona's workspace holds notes and build outputs, and a larger file (a
// sparse one costs nothing to make) would hold a hub-side thread and a
// core for seconds per call.
const MaxHashed = 256 << 20

// Refusals of the one safe open (openBytes); each wraps one.
var (
	// ErrLink: a symbolic link met while opening a resolved path — one
	// planted after the path was resolved and decided.
	ErrLink = errors.New("a symbolic link appeared in the path after it was resolved")
	// ErrHardLink: a regular file with more than one name, which may be a
	// secret or another tree's file under an innocent name.
	ErrHardLink = errors.New("file has more than one name (a hard link)")
	// ErrFileTooLarge: a file over the size the operation reads.
	ErrFileTooLarge = errors.New("file is over the size limit of the operation")
)

// opened is a workspace file opened for its bytes: a regular file with one
// name, at the root-relative path rel, which is exactly what was opened.
type opened struct {
	f   *os.File
	fi  fs.FileInfo
	rel string
}

// openBytes is the one way a file's bytes leave a tree (read, hash, send
// to a human, a removal's digest). rel is a path Resolve returned, so any
// link the persona named is already resolved and was decided on its target;
// the open then follows no link at any component (RESOLVE_NO_SYMLINKS
// semantics, one openat with O_NOFOLLOW per component, so nothing can lead
// out of the root or to another name), never blocks (O_NONBLOCK: a FIFO
// cannot pin a thread), and keeps only a regular file with a single name
// of at most limit bytes (limit < 0: any size), judged by fstat on what was
// opened. With judge, the secret table decides on rel, the name of what was
// opened, so a file swapped for a link between the decision and the open
// takes no material out.
func (r *Root) openBytes(op, rel string, limit int64, judge bool) (opened, error) {
	f, err := openBeneath(r.top, rel)
	if err != nil {
		return opened{}, notFound(op, rel, err)
	}
	fi, err := f.Stat()
	if err == nil {
		err = usable(fi, limit)
	}
	if err == nil && judge {
		if d := confirm.Egress(rel); d.Verdict == confirm.Deny {
			err = fmt.Errorf("%w: %s", confirm.ErrSecretMaterial, d)
		}
	}
	if err != nil {
		f.Close()
		return opened{}, fmt.Errorf("%s %q: %w", op, rel, err)
	}
	return opened{f: f, fi: fi, rel: rel}, nil
}

// usable refuses what fstat says is not a regular file with one name of at
// most limit bytes.
func usable(fi fs.FileInfo, limit int64) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: it is a %s", ErrNotFile, kind(fi.Mode()))
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
		return fmt.Errorf("%w: %d names; copy it instead of linking it", ErrHardLink, st.Nlink)
	}
	if limit >= 0 && fi.Size() > limit {
		return fmt.Errorf("%w: %d bytes, at most %d", ErrFileTooLarge, fi.Size(), limit)
	}
	return nil
}

// kind names a file mode's type for a refusal.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	}
	return "special file"
}

// openBeneath opens the normalized relative path rel (no "..", no empty or
// "." segment) below the directory top for reading, component by
// component, following no symbolic link and never blocking. A link at any
// component is ErrLink, a file where a directory belongs ErrNotDir; a
// socket, which open refuses, is ErrNotFile.
func openBeneath(top *os.File, rel string) (*os.File, error) {
	var f *os.File
	err := withFd(top, func(dirfd int) error {
		segs := strings.Split(rel, "/")
		fd := dirfd
		for i, seg := range segs {
			flags := unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOFOLLOW
			if i < len(segs)-1 {
				flags |= unix.O_DIRECTORY
			} else {
				flags |= unix.O_NONBLOCK | unix.O_NOCTTY
			}
			next, err := openat(fd, seg, flags)
			if errors.Is(err, unix.ENOTDIR) && isLink(fd, seg) {
				err = unix.ELOOP // O_DIRECTORY|O_NOFOLLOW on a link
			}
			if fd != dirfd {
				unix.Close(fd)
			}
			switch {
			case errors.Is(err, unix.ELOOP):
				return fmt.Errorf("%w: %s", ErrLink, strings.Join(segs[:i+1], "/"))
			case errors.Is(err, unix.ENOTDIR):
				return fmt.Errorf("%w: %s", ErrNotDir, strings.Join(segs[:i+1], "/"))
			case errors.Is(err, unix.ENXIO):
				return fmt.Errorf("%w: it is a socket", ErrNotFile)
			case err != nil:
				return &fs.PathError{Op: "open", Path: rel, Err: err}
			}
			fd = next
		}
		f = os.NewFile(uintptr(fd), rel)
		return nil
	})
	return f, err
}

// isLink reports whether name in the directory dirfd is a symbolic link.
func isLink(dirfd int, name string) bool {
	var st unix.Stat_t
	return unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK
}

// openat is unix.Openat retried on EINTR.
func openat(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// withFd runs fn with the descriptor of the open directory d, which stays
// open while fn runs.
func withFd(d *os.File, fn func(fd int) error) error {
	rc, err := d.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return err
	}
	return ferr
}
