package runs

import (
	"fmt"
	"slices"
	"strings"
)

// State is where a run stands in its state machine.
type State string

// The states of a run. A run is created pending; succeeded, failed and
// cancelled are terminal: a finished run takes no more events, artifacts or
// moves.
const (
	StatePending   State = "pending"
	StateRunning   State = "running"
	StateBlocked   State = "blocked"
	StateSucceeded State = "succeeded"
	StateFailed    State = "failed"
	StateCancelled State = "cancelled"
)

// Move is one edge of the state machine.
type Move struct {
	From State
	To   []State
}

// machine is the run state machine, one row per state in the order an
// operator reads it (docs/api.md quotes it). A move not listed is refused
// with ErrIllegalMove.
var machine = []Move{
	{StatePending, []State{StateRunning, StateCancelled}},
	{StateRunning, []State{StateBlocked, StateSucceeded, StateFailed, StateCancelled}},
	{StateBlocked, []State{StateRunning, StateFailed, StateCancelled}},
	{StateSucceeded, nil},
	{StateFailed, nil},
	{StateCancelled, nil},
}

// ParseState reads a state name, refusing one the machine does not have.
func ParseState(s string) (State, error) {
	for _, m := range machine {
		if string(m.From) == s {
			return m.From, nil
		}
	}
	return "", fmt.Errorf("run state %q: %w (one of %s)", s, ErrUnknownState, stateNames())
}

// Terminal reports whether the run is finished.
func (s State) Terminal() bool { return len(s.next()) == 0 }

// next is the states s may move to.
func (s State) next() []State {
	for _, m := range machine {
		if m.From == s {
			return m.To
		}
	}
	return nil
}

// CheckMove refuses a move the machine does not have, naming the moves
// that exist from here.
func CheckMove(from, to State) error {
	next := from.next()
	if slices.Contains(next, to) {
		return nil
	}
	if len(next) == 0 {
		return fmt.Errorf("%w: the run is %s, a final state; start a new run", ErrIllegalMove, from)
	}
	names := make([]string, len(next))
	for i, s := range next {
		names[i] = string(s)
	}
	return fmt.Errorf("%w: %s → %s; from %s the run moves to %s", ErrIllegalMove, from, to, from, strings.Join(names, ", "))
}

func stateNames() string {
	names := make([]string, len(machine))
	for i, m := range machine {
		names[i] = string(m.From)
	}
	return strings.Join(names, ", ")
}
