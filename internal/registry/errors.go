package registry

import (
	"errors"
	"fmt"
)

// Named errors of the registry. Callers test them with errors.Is; the
// returned errors wrap them with the address, name or id concerned and what
// the operator can do about it.
var (
	// ErrSeatTaken: the address already has a pending or active holder.
	ErrSeatTaken = errors.New("seat is taken")
	// ErrNameTaken: the name belongs to a persona, retired ones included;
	// names are for life and compared case-insensitively.
	ErrNameTaken = errors.New("name is taken")
	// ErrRetired: the persona is retired, and a retired persona never
	// becomes active again.
	ErrRetired = errors.New("persona is retired")
	// ErrRefused: the persona's activation was refused; it never becomes active.
	ErrRefused = errors.New("persona was refused")
	// ErrNotPending: the operation needs a persona awaiting confirmation.
	ErrNotPending = errors.New("persona is not pending")
	// ErrNotFound: no persona, seat or name matches.
	ErrNotFound = errors.New("not found")
	// ErrInvalidName: the name breaks the name rules.
	ErrInvalidName = errors.New("invalid persona name")
	// ErrInvalidHuman: the human authority is not human:<name>.
	ErrInvalidHuman = errors.New("invalid human authority")
	// ErrNoRepository: the repository binding is not an existing directory.
	ErrNoRepository = errors.New("repository is not an existing directory")
	// ErrRepositoryHome: the repository binding contains the installation
	// home or lies inside it, where the persona would reach the database,
	// tokens and key bindings through its repository tools.
	ErrRepositoryHome = errors.New("repository binding overlaps the installation home")
	// ErrInvalidLineage: the session lineage id or character hash is malformed.
	ErrInvalidLineage = errors.New("invalid session lineage or character hash")
	// ErrReasonRequired: retirement and refusal record why; an empty reason is refused.
	ErrReasonRequired = errors.New("a reason is required")
	// ErrNotDeputy: OwningLead was asked about an address that is not a deputy seat.
	ErrNotDeputy = errors.New("not a deputy address")
	// ErrInvalidCount: a suggestion count below one.
	ErrInvalidCount = errors.New("count must be at least 1")
	// ErrRecord: a persona record is not JSON of the persona object
	// (docs/json-output.md).
	ErrRecord = errors.New("unreadable persona record")
	// ErrCompositionMismatch: a persona record's composition hash is not
	// the one its character hash and stamp hash compose, or its stamp was
	// built from another character hash: the generation does not stand.
	ErrCompositionMismatch = errors.New("persona composition mismatch")
	// ErrContention: the store kept changing under a transaction; retry later.
	ErrContention = errors.New("too much concurrent change; try again")
	// ErrNoActiveHolder: the seat has no active holder (never granted, empty
	// since a retirement or refusal, or held by a generation still pending).
	ErrNoActiveHolder = errors.New("seat has no active holder")
)

// SeatTakenError is ErrSeatTaken for addr naming its holder h, in the words
// registration and the wizard's role step both show.
func SeatTakenError(addr string, h Persona) error {
	if h.State == StatePending {
		return fmt.Errorf("%w: %s is held by %s (generation %d, pending confirmation); refuse or retire it first",
			ErrSeatTaken, addr, h.Name, h.Generation)
	}
	return fmt.Errorf("%w: %s is held by %s (generation %d); retire it first", ErrSeatTaken, addr, h.Name, h.Generation)
}
