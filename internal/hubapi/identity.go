package hubapi

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
)

// ConfirmPrincipal is the confirmation queue's principal of a token's identity.
func (id Identity) ConfirmPrincipal() (confirm.Principal, error) {
	if id.IsHuman() {
		return confirm.ParsePrincipal(id.Principal)
	}
	return confirm.PersonaPrincipal(id.Principal), nil
}

// TokenFile is the name of a persona generation's token in its private directory.
const TokenFile = "token"

// TokenPrefix marks a virgo hub token, so one pasted into the wrong place is
// recognisable (and a secret scanner can find it).
const TokenPrefix = "vgt_"

// Kind of principal a token identifies.
const (
	PrincipalHuman   = "human"
	PrincipalPersona = "persona"
)

// Identity is who a request comes from, derived by the hub from its token
// and never from the request body.
type Identity struct {
	// Kind is "human" or "persona".
	Kind string `json:"kind"`
	// Principal is "human:<name>", or the persona's address.
	Principal string `json:"principal"`
	// PersonaID is the generation id of a persona identity.
	PersonaID string `json:"persona_id,omitempty"`
}

// IsHuman reports whether the identity is an operator.
func (id Identity) IsHuman() bool { return id.Kind == PrincipalHuman }

// NewToken returns a fresh random token (256 bits).
func NewToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return TokenPrefix + base64.RawURLEncoding.EncodeToString(b[:])
}

// operatorName is the form of an operator name: it names a token file.
var operatorName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// ValidOperatorName reports whether name (without "human:") can name an
// operator and its token file.
func ValidOperatorName(name string) bool { return operatorName.MatchString(name) }

// OperatorTokenPath is where a human principal's token lives in a home.
func OperatorTokenPath(home, name string) string {
	return filepath.Join(home, "operators", name+".token")
}

// OperatorToken returns the token of human principal name ("human:<name>"
// or a bare name), creating it 0600 on first use.
func OperatorToken(home, name string) (string, error) {
	name = strings.TrimPrefix(name, "human:")
	if !ValidOperatorName(name) {
		return "", fmt.Errorf("operator %q: %w: use letters, digits, '.', '_' or '-'", name, ErrBadOperatorName)
	}
	dir := filepath.Join(home, "operators")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("operator token: %w", err)
	}
	return ReadOrCreateToken(OperatorTokenPath(home, name))
}

// ReadOrCreateToken reads a token file, or creates it with a new token,
// 0600. The file is written aside and hard-linked into place, so a reader
// never sees it half written and two first uses at once agree on one token.
func ReadOrCreateToken(path string) (string, error) {
	if b, err := os.ReadFile(path); err == nil {
		tok := strings.TrimSpace(string(b))
		if !strings.HasPrefix(tok, TokenPrefix) {
			return "", fmt.Errorf("%s does not hold a virgo token; remove it to issue a new one", path)
		}
		return tok, nil
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".token-*")
	if err != nil {
		return "", fmt.Errorf("create token: %w", err)
	}
	defer os.Remove(f.Name())
	tok := NewToken()
	_, err = f.WriteString(tok + "\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("write token %s: %w", path, err)
	}
	if err := os.Link(f.Name(), path); errors.Is(err, os.ErrExist) {
		return ReadOrCreateToken(path)
	} else if err != nil {
		return "", fmt.Errorf("create %s: %w", path, err)
	}
	return tok, nil
}
