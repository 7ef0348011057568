package usecase

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// generationID is the shape of a generation id, and so of the name of its
// private directory: nothing else under personas/ is ever removed.
var generationID = regexp.MustCompile(`^[0-9a-f]{16}$`)

// SweepStampDirs removes the generation directories no persona record
// names: a registration writes its stamp just before its transaction, and
// a process killed in between leaves the directory behind, unreferenced and
// harmless. ps are every persona record (roster.ListOptions{All: true});
// it runs when the hub starts, before any registration can be in flight.
// It returns how many it removed.
func (u *Cases) SweepStampDirs(ps []registry.Persona) (int, error) {
	root := u.home.PersonasDir()
	dir, err := os.Open(root)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("sweep unreferenced stamp directories: %w", err)
	}
	// Unsorted (os.ReadDir sorts 10,000 names a sweep does not need in
	// order); a known generation is skipped before its name is matched.
	entries, err := dir.ReadDir(-1)
	dir.Close()
	if err != nil {
		return 0, fmt.Errorf("sweep unreferenced stamp directories: %w", err)
	}
	known := make(map[string]bool, len(ps))
	for _, p := range ps {
		known[p.ID] = true
	}
	n := 0
	for _, e := range entries {
		if known[e.Name()] || !e.IsDir() || !generationID.MatchString(e.Name()) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(root, e.Name())); err != nil {
			return n, fmt.Errorf("sweep unreferenced stamp directories: %w", err)
		}
		u.log.Info("removed the stamp directory of a registration that never committed", "dir", e.Name())
		n++
	}
	return n, nil
}
