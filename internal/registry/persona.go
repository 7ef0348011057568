package registry

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// State is where a persona generation stands in its life.
type State string

// Persona states. pending → active → retired, or pending → refused;
// pending → retired is allowed too. Retired and refused are final.
const (
	// StatePending: registered, holding its seat, awaiting confirmation.
	StatePending State = "pending"
	// StateActive: the seat's holder; it receives placement and work.
	StateActive State = "active"
	// StateRetired: left its seat for good; records and history stay.
	StateRetired State = "retired"
	// StateRefused: its activation was refused; it never held the seat as active.
	StateRefused State = "refused"
)

// HoldsSeat reports whether a persona in this state occupies its seat
// (pending or active): only then is the seat taken.
func (s State) HoldsSeat() bool { return s == StatePending || s == StateActive }

// Persona is one generation of a seat's holder. It is the stored record and,
// through its JSON tags, the documented -o json shape (docs/json-output.md):
// keep the tags stable.
type Persona struct {
	// ID is random and never reused; it names the generation's directory.
	ID string `json:"id"`
	// Name is the for-life, owner-facing name.
	Name string `json:"name"`
	// Address is the canonical seat path; Scope, Project and Role are its parts.
	Address string  `json:"address"`
	Scope   string  `json:"scope"`
	Project string  `json:"project"`
	Role    string  `json:"role"`
	Profile Profile `json:"profile"`
	// Generation counts the seat's holders: the first is 1.
	Generation int `json:"generation"`
	// SessionLineage is the native session lineage id kept across resume and migration.
	SessionLineage string `json:"session_lineage"`
	// CharacterHash is the character composition hash.
	CharacterHash string `json:"character_hash"`
	// Repository is the optional absolute path of the bound repository.
	Repository string `json:"repository"`
	// Human is the bound human authority, human:<name>.
	Human string `json:"human"`
	State State  `json:"state"`
	// StampHash is the SHA-256 of the generation's capability stamp, once written.
	StampHash string `json:"stamp_hash"`
	// Composition is the generation's composition hash, which covers its
	// capability stamp (spec: the stamp "is covered by its composition
	// hash"): Compose of CharacterHash and StampHash, set where the
	// generation is admitted and proven where its standing is.
	Composition  string     `json:"composition"`
	CreatedAt    time.Time  `json:"created_at"`
	ActivatedAt  *time.Time `json:"activated_at"`
	RetiredAt    *time.Time `json:"retired_at"`
	RetireReason string     `json:"retire_reason"`
	RefusedAt    *time.Time `json:"refused_at"`
	RefuseReason string     `json:"refuse_reason"`
}

// Path returns the parsed address. Stored addresses were parsed at
// registration, so this cannot fail for a record the registry wrote.
func (p Persona) Path() Address {
	return Address{Scope: p.Scope, Project: p.Project, Role: p.Role}
}

// DefaultHumanName is the bound human when neither --human nor a usable $USER is given.
const DefaultHumanName = "owner"

const humanPrefix = "human:"

var humanName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// NormalizeHuman validates a human authority and returns its canonical form
// human:<name>, the name in lower case. A bare name is accepted as shorthand; empty means the
// default: human:$USER, or human:owner when $USER is unset or unusable.
func NormalizeHuman(h string) (string, error) {
	h = strings.TrimSpace(h)
	if h == "" {
		if u := os.Getenv("USER"); humanName.MatchString(u) {
			return humanPrefix + strings.ToLower(u), nil
		}
		return humanPrefix + DefaultHumanName, nil
	}
	name := strings.TrimPrefix(h, humanPrefix)
	if !humanName.MatchString(name) {
		return "", fmt.Errorf("%q: %w: use human:<name>, the name letters, digits, '.', '_' or '-' (at most 64)", h, ErrInvalidHuman)
	}
	// One canonical form: the confirmation queue compares principals
	// case-insensitively, so human:Henry and human:henry are one person.
	return humanPrefix + strings.ToLower(name), nil
}

// normalizeRepository checks that dir is an existing directory apart from
// the installation home (neither containing it nor inside it, links
// resolved: ErrRepositoryHome) and returns it absolute and clean; empty
// stays empty (no binding).
func normalizeRepository(dir, home string) (string, error) {
	if dir == "" {
		return "", nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("repository %s: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("repository %s: %w: %v", abs, ErrNoRepository, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("repository %s: %w: it is a file", abs, ErrNoRepository)
	}
	if home != "" {
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return "", fmt.Errorf("repository %s: %w: %v", abs, ErrNoRepository, err)
		}
		realHome, err := filepath.EvalSymlinks(home)
		if err != nil {
			return "", fmt.Errorf("repository %s: home %s: %w", abs, home, err)
		}
		if within(real, realHome) || within(realHome, real) {
			return "", fmt.Errorf("repository %s: %w %s: bind a worktree outside it", abs, ErrRepositoryHome, home)
		}
	}
	return abs, nil
}

// within reports whether the clean absolute path p is dir or lies below it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

var token = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9:._-]{0,127}$`)

// CheckToken validates an externally given lineage id or hash: printable,
// no spaces, at most 128 characters, so it is safe in any projection.
func CheckToken(what, v string) error {
	if !token.MatchString(v) {
		return fmt.Errorf("%s %q: %w: use letters, digits, ':', '.', '_' or '-' (at most 128)", what, v, ErrInvalidLineage)
	}
	return nil
}

// randomHex returns n random bytes as hex; crypto/rand never fails on the
// platforms Go supports.
func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// Compose is a generation's composition hash: "sha256:" and the hex SHA-256
// of "virgo-composition-v1\n" + characterHash + "\n" + stampHash + "\n".
// The stamp cannot hash itself, so the stamp carries the character hash it
// was built from (its composition_hash) and the record carries this, which
// covers both; through the stamp hash it covers every byte of the stamp —
// identity, address, profile, bindings and tools. Both inputs are tokens
// without newlines (CheckToken), so the joined form is unambiguous. A
// generation without a stamp composes with an empty stamp hash.
func Compose(characterHash, stampHash string) string {
	sum := sha256.Sum256([]byte("virgo-composition-v1\n" + characterHash + "\n" + stampHash + "\n"))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// CheckComposition reports whether p's recorded composition is the one its
// character and stamp hashes compose: a record whose stamp hash or
// character hash changed without it was written outside the registry, and
// its generation does not stand (ErrCompositionMismatch).
func (p Persona) CheckComposition() error {
	if want := Compose(p.CharacterHash, p.StampHash); p.Composition != want {
		return fmt.Errorf("%s (%s, generation %d): %w: the record's composition is %q, its character hash and stamp hash compose %s; "+
			"the record was changed outside the registry: restore it, or retire the generation and register a new one",
			p.Address, p.Name, p.Generation, ErrCompositionMismatch, p.Composition, want)
	}
	return nil
}

// deriveCharacterHash is the composition hash when none is given: the
// SHA-256 of what composes the character at registration — name, address and
// profile — so two generations of a seat never share one.
func deriveCharacterHash(name, addr string, profile Profile) string {
	sum := sha256.Sum256([]byte("virgo-character-v1\n" + name + "\n" + addr + "\n" + string(profile) + "\n"))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// FirstPersonaAddress is the seat persona add suggests for an empty installation.
const FirstPersonaAddress = "root/secretary"
