package confirm

import (
	"fmt"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// PrincipalKind separates people from models.
type PrincipalKind uint8

// The kinds of principal.
const (
	// PrincipalHuman is a person: "human:<name>".
	PrincipalHuman PrincipalKind = iota + 1
	// PrincipalPersona is a model, named by its persona address.
	PrincipalPersona
	// PrincipalSystem is virgo-tui itself (the factory queueing an
	// activation). It cannot be parsed from outside input, so nobody can
	// claim to be it, and it never decides.
	PrincipalSystem
)

// HumanPrefix starts a human principal's text form.
const HumanPrefix = "human:"

// Principal is who acts: set from the caller's identity (a token, later;
// --as now), never from a request body.
type Principal struct {
	Kind PrincipalKind
	// Name is the human's name, the persona's address, or the system part.
	Name string
}

// ParsePrincipal reads "human:<name>" or a canonical persona address. A
// human name has the registry's grammar (letters, digits, '.', '_', '-', at
// most 64) and is folded to lower case: "human:Henry" on a stamp and
// "--as human:henry" are one person, and no second principal can differ
// from a human only in case.
func ParsePrincipal(s string) (Principal, error) {
	if name, ok := strings.CutPrefix(s, HumanPrefix); ok {
		if !humanName(name) {
			return Principal{}, fmt.Errorf("principal %q: %w: a human name is letters, digits, '.', '_' or '-' (at most 64)", s, ErrBadPrincipal)
		}
		return Principal{Kind: PrincipalHuman, Name: strings.ToLower(name)}, nil
	}
	if _, err := NormalizeAddress(s); err != nil {
		return Principal{}, fmt.Errorf("principal %q: %w (%w)", s, ErrBadPrincipal, err)
	}
	return Principal{Kind: PrincipalPersona, Name: s}, nil
}

// SystemPrincipal is virgo-tui acting on its own account (named part).
func SystemPrincipal(part string) Principal { return Principal{Kind: PrincipalSystem, Name: part} }

// PersonaPrincipal is the principal of a persona address, unchecked: for an
// address that came from a stamp or the registry.
func PersonaPrincipal(address string) Principal {
	return Principal{Kind: PrincipalPersona, Name: address}
}

// String is the text form stored in records.
func (p Principal) String() string {
	switch p.Kind {
	case PrincipalHuman:
		return HumanPrefix + p.Name
	case PrincipalSystem:
		return "system:" + p.Name
	}
	return p.Name
}

// IsModel reports whether the principal is a persona.
func (p Principal) IsModel() bool { return p.Kind == PrincipalPersona }

// IsZero reports an unset principal.
func (p Principal) IsZero() bool { return p.Kind == 0 }

// MarshalText stores the text form.
func (p Principal) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText reads a stored principal, including system ones (stored
// records are trusted; outside input goes through ParsePrincipal).
func (p *Principal) UnmarshalText(text []byte) error {
	s := string(text)
	if name, ok := strings.CutPrefix(s, "system:"); ok {
		*p = SystemPrincipal(name)
		return nil
	}
	if s == "" {
		*p = Principal{}
		return nil
	}
	q, err := ParsePrincipal(s)
	if err != nil {
		return err
	}
	*p = q
	return nil
}

// PrincipalOfAddress checks a seat address read from a stamp.
func PrincipalOfAddress(addr string) (Principal, error) {
	a, err := registry.ParseAddress(addr)
	if err != nil {
		return Principal{}, err
	}
	return PersonaPrincipal(a.String()), nil
}

// humanName is the registry's grammar of a human authority's name.
func humanName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return true
}
