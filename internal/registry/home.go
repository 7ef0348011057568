package registry

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/adrg/xdg"

	"github.com/virgo-hub/virgo-tui/internal/private"
)

// HomeEnv is the environment variable naming the installation home.
const HomeEnv = "VIRGO_HOME"

// Home is an installation's directory: the database and one private
// directory per persona generation (where its capability stamp lives).
type Home struct {
	// Dir is the absolute path of the home.
	Dir string
}

// ErrNotAHome: a command that works in an installation was pointed at a
// directory that holds none (or at nothing). Only the commands that make
// an installation create a home (CreateHome).
var ErrNotAHome = errors.New("not a virgo home")

// homeEntries are what an installation writes in its home and nothing else
// does: a directory holding any of them is a home. The database (absent
// when the store is etcd), the generations' directories (CreateHome makes
// it), the operators' token directory and the hub's run directory
// (hubapi.OperatorTokenPath, hubapi.RunDir).
var homeEntries = []string{"virgo.db", "personas", "operators", "run"}

// HomeDir is the home's path: the --home flag, else $VIRGO_HOME, else
// $XDG_DATA_HOME/virgo, made absolute.
func HomeDir(flag string) (string, error) {
	dir := flag
	if dir == "" {
		dir = os.Getenv(HomeEnv)
	}
	if dir == "" {
		dir = filepath.Join(xdg.DataHome, "virgo")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("home %s: %w", dir, err)
	}
	return abs, nil
}

// isHome says whether dir holds any of homeEntries (looked at without
// following a link).
func isHome(dir string) bool {
	for _, e := range homeEntries {
		if _, err := os.Lstat(filepath.Join(dir, e)); err == nil {
			return true
		}
	}
	return false
}

// ResolveHome picks the home (the --home flag, else $VIRGO_HOME, else
// $XDG_DATA_HOME/virgo) and checks it: a directory holding an installation
// (ErrNotAHome when it holds none or is missing), owned by the running user
// with no group or other write. It changes nothing: a read pointed at the
// wrong directory must not turn it into a home.
func ResolveHome(flag string) (Home, error) {
	dir, err := HomeDir(flag)
	if err != nil {
		return Home{}, err
	}
	if !isHome(dir) {
		return Home{}, fmt.Errorf("%s is %w (it holds none of %s)", dir, ErrNotAHome, strings.Join(homeEntries, ", "))
	}
	if err := private.Home(dir); err != nil {
		return Home{}, err
	}
	return Home{Dir: dir}, nil
}

// CreateHome is ResolveHome for the commands that make an installation
// (the first operator's enrolment, serve, the console's first start, the
// demo): a missing directory is created 0700, and one that is not yet a
// home gets its personas directory, which makes it one.
func CreateHome(flag string) (Home, error) {
	dir, err := HomeDir(flag)
	if err != nil {
		return Home{}, err
	}
	if isHome(dir) {
		return ResolveHome(dir)
	}
	if err := private.Home(dir); err != nil {
		return Home{}, err
	}
	h := Home{Dir: dir}
	if err := private.Dir(h.PersonasDir()); err != nil {
		return Home{}, fmt.Errorf("create home %s: %w", dir, err)
	}
	return h, nil
}

// DBPath is the path of the installation's database file.
func (h Home) DBPath() string { return filepath.Join(h.Dir, "virgo.db") }

// PersonasDir holds the private directory of every persona generation.
func (h Home) PersonasDir() string { return filepath.Join(h.Dir, "personas") }

// GenerationDir is the private directory of one persona generation.
func (h Home) GenerationDir(id string) string { return filepath.Join(h.PersonasDir(), id) }

// MakeGenerationDir creates the generation's directory 0700 (and its
// parent). An existing one must be a private directory of the running
// user's: a link, another user's directory or a loose mode is refused.
func (h Home) MakeGenerationDir(id string) (string, error) {
	dir := h.GenerationDir(id)
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := private.Dir(d); err != nil {
			return "", fmt.Errorf("create persona directory: %w", err)
		}
	}
	return dir, nil
}
