package registry

import (
	"fmt"
	"os"
	"path/filepath"

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

// ResolveHome picks the home: the --home flag, else $VIRGO_HOME, else
// $XDG_DATA_HOME/virgo. It creates the directory owner-private (0700) so
// that nothing written under it is readable by others.
func ResolveHome(flag string) (Home, error) {
	dir := flag
	if dir == "" {
		dir = os.Getenv(HomeEnv)
	}
	if dir == "" {
		dir = filepath.Join(xdg.DataHome, "virgo")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Home{}, fmt.Errorf("home %s: %w", dir, err)
	}
	if err := private.Home(abs); err != nil {
		return Home{}, err
	}
	return Home{Dir: abs}, nil
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
