package hubapi

import (
	"errors"
	"fmt"
	"path/filepath"
)

// RunDir is the hub's directory under the home (0700): socket and pid file.
func RunDir(home string) string { return filepath.Join(home, "run") }

// SocketPath is where the hub of a home listens.
func SocketPath(home string) string { return filepath.Join(RunDir(home), "hub.sock") }

// PIDPath is the hub's pid file, held locked while the hub runs.
func PIDPath(home string) string { return filepath.Join(RunDir(home), "hub.pid") }

// ErrHubRunning: another hub already serves this home.
var ErrHubRunning = errors.New("a hub is already running for this home")

// ErrNoHandOver: the hub asked to hand its home over to `serve` is one that
// keeps it (a daemon, started by serve itself).
var ErrNoHandOver = errors.New("this hub was started by `virgo-tui serve` and does not hand its home over; stop it (Ctrl-C or SIGTERM) to start another")

// MaxSocketPath is the longest path a Unix socket may have on Linux: the
// 108 bytes of sun_path, less its terminating NUL.
const MaxSocketPath = 107

// ErrHomeTooLong is a home whose socket path would not fit a Unix socket.
var ErrHomeTooLong = errors.New("home path too long for the hub's socket")

// CheckSocketPath refuses a home whose socket path is over the Unix
// socket limit, naming it, instead of a bare "bind: invalid argument".
func CheckSocketPath(home string) error {
	if sock := SocketPath(home); len(sock) > MaxSocketPath {
		return fmt.Errorf("%w: %s is %d bytes, and a Unix socket path is at most %d (the 108-byte sun_path less its NUL); use a shorter --home",
			ErrHomeTooLong, sock, len(sock), MaxSocketPath)
	}
	return nil
}
