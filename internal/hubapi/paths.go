package hubapi

import (
	"errors"
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
