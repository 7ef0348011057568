package wizard

import (
	"context"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// Backend is everything the wizard needs from the installation. The wizard
// calls it only inside tea.Cmds, never in Update, so a slow hub cannot freeze
// the screen; an implementation may block and should honour ctx.
type Backend interface {
	// Snapshot returns what the steps offer: scopes, projects, free name
	// suggestions and taken names, read once when the wizard opens.
	Snapshot(ctx context.Context) (Snapshot, error)
	// Preview builds the stamp the registration would write (the same
	// factory input persona add uses) and returns the seat's previous
	// generation, or nil for a seat never held.
	Preview(ctx context.Context, r Registration) (Preview, error)
	// Submit registers the persona and queues its activation confirmation.
	Submit(ctx context.Context, r Registration) (Submitted, error)
	// Approve decides a queued confirmation as the operator. The wizard only
	// calls it after an explicit approve key, and only when Submitted said the
	// operator is the bound human.
	Approve(ctx context.Context, confirmationID string) error
}

// Snapshot is the installation as the wizard's steps see it.
type Snapshot struct {
	// Scopes lists the existing scopes; root is always offered, whether
	// listed here or not (registry.Scopes includes it once a root seat exists).
	Scopes []string
	// Projects lists the existing projects of each scope.
	Projects map[string][]string
	// Suggestions are free constellation names, best first; the first one is
	// preselected on the name step.
	Suggestions []string
	// Taken lists every name ever given, retired holders included; names are
	// for life, so any of these (in any letter case) is refused.
	Taken []string
	// Holders are the seats' current holders (pending or active) by
	// canonical address: the role step refuses a held seat and names its
	// holder there, not at submit.
	Holders map[string]registry.Persona
	// Empty is true when the installation has no persona yet: the wizard then
	// starts at root/secretary with the first suggestion (spec: the first
	// persona's default belongs to persona add alone).
	Empty bool
	// Operator is the human principal operating the console ("human:ada").
	Operator string
}

// Registration is the wizard's answer: the canonical address and the name.
type Registration struct {
	Address registry.Address
	Name    string
}

// Preview is what the wizard shows before anything is submitted.
type Preview struct {
	// Stamp is the generated capability stamp of the new generation.
	Stamp stamp.Stamp
	// Previous is the stamp of the seat's previous generation, nil when the
	// seat was never held; the class-matrix diff is taken against it.
	Previous *stamp.Stamp
}

// Submitted is the queued activation confirmation of a registration.
type Submitted struct {
	// ConfirmationID identifies the activation confirmation in the queue.
	ConfirmationID string
	// OperatorIsBoundHuman is true when the operator may approve it: only
	// then does the wizard offer to approve on the spot.
	OperatorIsBoundHuman bool
}
