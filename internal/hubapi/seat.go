package hubapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/private"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
)

// A persona runtime acts with its own generation's token and nothing else:
// it must find that token without asking the hub as anyone (an operator
// could read the seat's holder, but a runtime is no operator). So the hub
// that issues a generation's token — the one whose home holds its private
// directory — also writes a seat file, <home>/seats/<address with '/' as
// '.'> (0600 in a 0700 directory), naming the generation that holds the
// seat on this host. A runtime reads the seat file, then the generation's
// token file, and learns from the hub who the token says it is (whoami).
// The file is a pointer, not a credential: the token stays in one place,
// and a seat file pointing at a retired generation leads to a token the hub
// refuses.

// ErrNoSeatFile: no seat file names a holder of the seat (or name) on this
// host — it has no active holder registered here — so no runtime token can
// be found there.
var ErrNoSeatFile = errors.New("no active holder on this host (no seat file)")

// Seat is what a seat file records: the generation holding the seat.
type Seat struct {
	// ID is the generation's id (its private directory's name).
	ID string `json:"id"`
	// Name is the generation's for-life name.
	Name string `json:"name"`
	// Address is the seat.
	Address string `json:"address"`
}

// SeatsDir is the directory of a home's seat files.
func SeatsDir(home string) string { return filepath.Join(home, "seats") }

// SeatFile is the seat file of address in home. An address's segments
// hold lowercase letters, digits and '-', so '.' cannot be part of one.
func SeatFile(home, address string) string {
	return filepath.Join(SeatsDir(home), strings.ReplaceAll(address, "/", "."))
}

// SeatTokenFile is the token file of the generation s names in home.
func SeatTokenFile(home string, s Seat) string {
	return filepath.Join(home, "personas", s.ID, TokenFile)
}

// PointSeat records in home that generation s holds its seat, replacing
// what the seat file said.
func PointSeat(home string, s Seat) error {
	if err := private.Dir(SeatsDir(home)); err != nil {
		return fmt.Errorf("seat file of %s: %w", s.Address, err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	if err := private.Replace(SeatFile(home, s.Address), append(b, '\n')); err != nil {
		return fmt.Errorf("seat file of %s: %w", s.Address, err)
	}
	return nil
}

// ClearSeat removes the seat file of s.Address if it still names
// generation s (a newer holder's file is left).
func ClearSeat(home string, s Seat) error {
	cur, err := ReadSeat(home, s.Address)
	if errors.Is(err, ErrNoSeatFile) || err == nil && cur.ID != s.ID {
		return nil
	}
	if err == nil {
		err = os.Remove(SeatFile(home, s.Address))
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("seat file of %s: %w", s.Address, err)
	}
	return nil
}

// ReadSeat reads the seat file of address in home: ErrNoSeatFile when
// there is none. The file must be a private file of the running user's, as
// every secret of the home.
func ReadSeat(home, address string) (Seat, error) {
	path := SeatFile(home, address)
	b, err := private.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Seat{}, fmt.Errorf("%s: %w (%s)", address, ErrNoSeatFile, path)
	}
	if err != nil {
		return Seat{}, err
	}
	var s Seat
	if err := strictjson.Decode(b, &s); err != nil || s.Address != address || s.ID == "" || strings.ContainsAny(s.ID, `/\.`) {
		return Seat{}, fmt.Errorf("%s: %w: it does not hold what this tool writes; remove it, and a hub issuing the seat's token writes it again", path, ErrBadTokenFile)
	}
	return s, nil
}

// FindSeat reads the seat file of ref: an address (anything with a '/'),
// or a persona's name, matched case-insensitively among this home's seat
// files.
func FindSeat(home, ref string) (Seat, error) {
	ref = strings.TrimSpace(ref)
	if strings.Contains(ref, "/") {
		return ReadSeat(home, ref)
	}
	ents, err := os.ReadDir(SeatsDir(home))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Seat{}, fmt.Errorf("seat files: %w", err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			continue // a file being written
		}
		s, err := ReadSeat(home, strings.ReplaceAll(e.Name(), ".", "/"))
		if err != nil {
			return Seat{}, err
		}
		if strings.EqualFold(s.Name, ref) {
			return s, nil
		}
	}
	return Seat{}, fmt.Errorf("%s: %w (%s)", ref, ErrNoSeatFile, SeatsDir(home))
}
