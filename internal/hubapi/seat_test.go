package hubapi

import (
	"errors"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/private"
)

// A seat file says which generation's token a runtime presents: one that
// names its generation twice, or names it in another case, says two
// things, and is refused as a file this tool did not write.
func TestASeatFileThatSaysTwoThingsIsRefused(t *testing.T) {
	home := t.TempDir()
	seat := Seat{ID: "p-1", Name: "Spica", Address: "work/core/lead"}
	if err := PointSeat(home, seat); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadSeat(home, seat.Address); err != nil || got != seat {
		t.Fatalf("the seat file as written reads as %+v, %v", got, err)
	}
	for name, file := range map[string]string{
		"the id twice":         `{"id":"p-2","name":"Spica","address":"work/core/lead","id":"p-1"}`,
		"the id in other case": `{"ID":"p-1","name":"Spica","address":"work/core/lead","id":"p-2"}`,
	} {
		if err := private.Replace(SeatFile(home, seat.Address), []byte(file)); err != nil {
			t.Fatal(err)
		}
		if got, err := ReadSeat(home, seat.Address); !errors.Is(err, ErrBadTokenFile) {
			t.Errorf("%s: read as %+v, %v; want %v", name, got, err, ErrBadTokenFile)
		}
	}
}
