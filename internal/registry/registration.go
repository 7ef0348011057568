package registry

import (
	"strings"
	"time"
)

// Registration is what persona add asks for. Only Address and Name are
// required; the rest have defaults (see Register).
type Registration struct {
	// Address is the seat path, e.g. work/core/lead.
	Address string
	// Name is the for-life name, unique across the installation in any case.
	Name string
	// Human is the bound human authority (human:<name>); default human:$USER.
	Human string
	// Repository is an existing directory to bind; empty binds none.
	Repository string
	// SessionLineage is the native session lineage id; generated when empty.
	SessionLineage string
	// CharacterHash is the character composition hash; derived when empty.
	CharacterHash string
	// Pending registers the generation awaiting confirmation: it holds the
	// seat, but becomes active only through Activate.
	Pending bool
}

// Prepare validates a registration and fills its defaults, reading and
// writing nothing: a registration refused here uses up no name and no seat.
// now is the time of the registration. The seat's generation is decided
// when the persona is admitted, inside the transaction.
func Prepare(reg Registration, home Home, now time.Time) (Persona, error) {
	addr, err := ParseAddress(strings.TrimSpace(reg.Address))
	if err != nil {
		return Persona{}, err
	}
	name, err := NormalizeName(reg.Name)
	if err != nil {
		return Persona{}, err
	}
	human, err := NormalizeHuman(reg.Human)
	if err != nil {
		return Persona{}, err
	}
	repo, err := normalizeRepository(reg.Repository, home.Dir)
	if err != nil {
		return Persona{}, err
	}
	lineage := reg.SessionLineage
	if lineage == "" {
		lineage = "ses-" + randomHex(16)
	} else if err := CheckToken("session lineage", lineage); err != nil {
		return Persona{}, err
	}
	character := reg.CharacterHash
	if character == "" {
		character = deriveCharacterHash(name, addr.String(), addr.Profile())
	} else if err := CheckToken("character hash", character); err != nil {
		return Persona{}, err
	}
	p := Persona{
		ID: randomHex(8), Name: name,
		Address: addr.String(), Scope: addr.Scope, Project: addr.Project, Role: addr.Role, Profile: addr.Profile(),
		SessionLineage: lineage, CharacterHash: character, Repository: repo, Human: human,
		State: StateActive, CreatedAt: now, ActivatedAt: &now,
	}
	if reg.Pending {
		p.State, p.ActivatedAt = StatePending, nil
	}
	return p, nil
}
