package runs

import (
	"errors"
	"strings"
	"testing"
)

// The spec's "a run ... moves through a documented state machine (an
// illegal move is refused by name)": every pair of states is tried.
func TestEveryMoveOutsideTheMachineIsRefusedByName(t *testing.T) {
	legal := map[[2]State]bool{}
	for _, m := range machine {
		for _, to := range m.To {
			legal[[2]State{m.From, to}] = true
		}
	}
	for _, from := range machine {
		for _, to := range machine {
			err := CheckMove(from.From, to.From)
			if legal[[2]State{from.From, to.From}] != (err == nil) {
				t.Errorf("%s → %s: %v", from.From, to.From, err)
			}
			if err != nil && (!errors.Is(err, ErrIllegalMove) || !strings.Contains(err.Error(), string(from.From))) {
				t.Errorf("%s → %s: refusal %q does not name the move", from.From, to.From, err)
			}
		}
	}
	if _, err := ParseState("done"); !errors.Is(err, ErrUnknownState) {
		t.Fatalf("ParseState(done) = %v", err)
	}
}
