package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/private"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// A retired generation's snapshot is kept in the home, one directory per
// seat, so the seat's history can be restored from without the store:
// <home>/snapshots/<seat, '/' as '_'>/<generation>-<id>.snap, 0600 in 0700
// directories, written once.

// MaxKept bounds the kept snapshots a seat's listing reads.
const MaxKept = 1000

// KeptDir is the directory of the snapshots a home keeps.
func KeptDir(home string) string { return filepath.Join(home, "snapshots") }

// SeatDir is the directory of the snapshots kept of the seat at address.
func SeatDir(home, address string) string {
	return filepath.Join(KeptDir(home), strings.ReplaceAll(address, "/", "_"))
}

// keptName is the file name of p's kept snapshot.
func keptName(p registry.Persona) string { return fmt.Sprintf("%d-%s.snap", p.Generation, p.ID) }

// keptFile matches keptName's names.
var keptFile = regexp.MustCompile(`^([1-9][0-9]{0,8})-([0-9a-f]{16})\.snap$`)

// Kept is one kept snapshot of a seat.
type Kept struct {
	// Generation and ID name the generation.
	Generation int    `json:"generation"`
	ID         string `json:"id"`
	// Path is the file; Size its bytes.
	Path string `json:"path"`
	Size int64  `json:"size"`
}

// Keep writes the snapshot file b of generation p into home, once: a
// snapshot kept before is left as it is.
func Keep(home string, p registry.Persona, b []byte) (string, error) {
	for _, d := range []string{KeptDir(home), SeatDir(home, p.Address)} {
		if err := private.Dir(d); err != nil {
			return "", fmt.Errorf("keep the snapshot of %s: %w", p.Address, err)
		}
	}
	path := filepath.Join(SeatDir(home, p.Address), keptName(p))
	if err := private.Create(path, b); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("keep the snapshot of %s: %w", p.Address, err)
	}
	return path, nil
}

// KeptOf lists the snapshots home keeps of the seat at address, oldest
// generation first; files of other names are not snapshots and are left
// out.
func KeptOf(home, address string) ([]Kept, error) {
	es, err := os.ReadDir(SeatDir(home, address))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("kept snapshots of %s: %w", address, err)
	}
	var out []Kept
	for _, e := range es {
		m := keptFile.FindStringSubmatch(e.Name())
		if m == nil || !e.Type().IsRegular() {
			continue
		}
		if len(out) == MaxKept {
			break
		}
		fi, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		g, _ := strconv.Atoi(m[1])
		out = append(out, Kept{Generation: g, ID: m[2], Path: filepath.Join(SeatDir(home, address), e.Name()), Size: fi.Size()})
	}
	slices.SortFunc(out, func(a, b Kept) int { return a.Generation - b.Generation })
	return out, nil
}
