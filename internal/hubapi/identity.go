package hubapi

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/operatorkeys"
	"github.com/virgo-hub/virgo-tui/internal/operators"
	"github.com/virgo-hub/virgo-tui/internal/private"
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
	// Via is the transport a human acts through when it is not the local
	// socket (the SSH console), set by the hub with the session's token
	// and recorded with each of their decisions.
	Via *confirm.Via `json:"via,omitempty"`
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

// Named errors of operator enrolment.
var (
	// ErrNotEnrolled: a human principal with no operator token in the home
	// (or no enrolment in the installation's store).
	ErrNotEnrolled = operators.ErrNotEnrolled
	// ErrAlreadyEnrolled: enrolment of a human who already has a token.
	ErrAlreadyEnrolled = operators.ErrAlreadyEnrolled
	// ErrBadTokenFile: a token file that does not hold what this tool writes.
	ErrBadTokenFile = errors.New("token file does not hold a virgo token")
)

// NoUID is an operator not bound to a Unix user.
const NoUID = operators.NoUID

// Operator is an enrolled human as the home's token file records them.
type Operator struct {
	// Name is the operator's name, without "human:".
	Name  string
	Token string
	// UID, when not NoUID, is the Unix user every connection acting as
	// this operator must come from (checked with the socket's peer
	// credentials), so a persona runtime run as another user cannot act as
	// the human even with the token in hand.
	UID int
}

// operatorFile is the token file's text: the token on the first line, then
// optionally "uid N".
func (o Operator) operatorFile() []byte {
	if o.UID == NoUID {
		return []byte(o.Token + "\n")
	}
	return fmt.Appendf(nil, "%s\nuid %d\n", o.Token, o.UID)
}

// ReadOperator reads the enrolment in a token file. The file is opened
// without following links and must be the running user's, 0600; a missing
// file is fs.ErrNotExist.
func ReadOperator(path string) (Operator, error) {
	b, err := private.ReadFile(path)
	if err != nil {
		return Operator{}, err
	}
	name, _ := strings.CutSuffix(filepath.Base(path), ".token")
	o := Operator{Name: name, UID: NoUID}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	o.Token = strings.TrimSpace(lines[0])
	if !strings.HasPrefix(o.Token, TokenPrefix) {
		return Operator{}, fmt.Errorf("%s: %w; remove it and enrol the operator again", path, ErrBadTokenFile)
	}
	for _, l := range lines[1:] {
		v, ok := strings.CutPrefix(strings.TrimSpace(l), "uid ")
		uid, err := strconv.Atoi(v)
		if !ok || err != nil || uid < 0 {
			return Operator{}, fmt.Errorf("%s: %w: unknown line %q", path, ErrBadTokenFile, l)
		}
		o.UID = uid
	}
	return o, nil
}

// OperatorToken returns the token of an enrolled human principal name
// ("human:<name>" or a bare name). Humans are enrolled (EnrolOperator,
// `virgo-tui operator add`), not minted on first use, so nothing that can
// run a command can become a human by naming one. The one exception is the
// first install: in a home with no enrolled operator and no persona, the
// first human to act is enrolled as its first operator.
func OperatorToken(home, name string) (string, error) {
	name = strings.TrimPrefix(name, "human:")
	if !ValidOperatorName(name) {
		return "", fmt.Errorf("operator %q: %w: use letters, digits, '.', '_' or '-'", name, ErrBadOperatorName)
	}
	dir := filepath.Join(home, "operators")
	if err := private.CheckDir(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("operator token of human:%s: %w", name, err)
	}
	o, err := ReadOperator(OperatorTokenPath(home, name))
	if errors.Is(err, fs.ErrNotExist) && firstInstall(home) {
		tok, err := EnrolOperator(home, name, NoUID)
		if errors.Is(err, ErrAlreadyEnrolled) {
			return OperatorToken(home, name) // a concurrent first use enrolled them
		}
		return tok, err
	}
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("human:%s: %w in %s (no token file; an operator enrolled for the SSH console only has none, and acts only there): an enrolled operator runs \"virgo-tui operator add %s\" (see docs/security.md)", name, ErrNotEnrolled, home, name)
	}
	if err != nil {
		return "", fmt.Errorf("operator token of human:%s: %w", name, err)
	}
	return o.Token, nil
}

// EnrolOperator issues a token to human principal name, bound to Unix user
// uid unless uid is NoUID, and returns it. It refuses a name already
// enrolled: rotating a token is removing the file and enrolling again.
func EnrolOperator(home, name string, uid int) (string, error) {
	name = strings.TrimPrefix(name, "human:")
	if !ValidOperatorName(name) {
		return "", fmt.Errorf("operator %q: %w: use letters, digits, '.', '_' or '-'", name, ErrBadOperatorName)
	}
	if err := private.Dir(filepath.Join(home, "operators")); err != nil {
		return "", fmt.Errorf("enrol human:%s: %w", name, err)
	}
	o := Operator{Name: name, Token: NewToken(), UID: uid}
	if err := private.Create(OperatorTokenPath(home, name), o.operatorFile()); errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("human:%s: %w", name, ErrAlreadyEnrolled)
	} else if err != nil {
		return "", fmt.Errorf("enrol human:%s: %w", name, err)
	}
	return o.Token, nil
}

// firstInstall reports whether home has neither an enrolled operator nor a
// persona generation: nobody yet to be protected from the first human.
func firstInstall(home string) bool {
	ops, err := Operators(home)
	if err != nil || len(ops) > 0 {
		return false
	}
	gens, err := os.ReadDir(filepath.Join(home, "personas"))
	return errors.Is(err, fs.ErrNotExist) || err == nil && len(gens) == 0
}

// Operators lists the enrolled operators of a home, by name. A home with
// none is a first install. Unsafe token files (links, other owners, loose
// modes) are refused, not skipped.
func Operators(home string) ([]Operator, error) {
	dir := filepath.Join(home, "operators")
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err == nil {
		err = private.CheckDir(dir)
	}
	if err != nil {
		return nil, fmt.Errorf("operators: %w", err)
	}
	var out []Operator
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".token")
		if !ok || !ValidOperatorName(name) {
			continue
		}
		o, err := ReadOperator(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// ReadPersonaToken reads a persona runtime's token file, checked as the
// operators' are: a regular file of yours, 0600, not a link, a few lines
// at most (internal/private). The hub, the CLI and `mcp` read a persona's
// token only through it (through ReadGenerationToken when the token
// is the home's). A missing file is
// fs.ErrNotExist; one that holds no virgo token is ErrBadTokenFile.
func ReadPersonaToken(path string) (string, error) {
	b, err := private.ReadFile(path)
	if err != nil {
		return "", err
	}
	tok, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	if tok = strings.TrimSpace(tok); !strings.HasPrefix(tok, TokenPrefix) {
		return "", fmt.Errorf("%s: %w", path, ErrBadTokenFile)
	}
	return tok, nil
}

// ReadGenerationToken reads the token file of a generation in the home
// (personas/<id>/token): its directory must be private too (0700, yours,
// not a link), as operators/ must.
func ReadGenerationToken(path string) (string, error) {
	if err := private.CheckDir(filepath.Dir(path)); err != nil {
		return "", fmt.Errorf("token %s: %w", path, err)
	}
	return ReadPersonaToken(path)
}

// ReadOrCreateToken reads a persona generation's token file
// (ReadGenerationToken), or creates it with a new token, 0600, when the hub
// issues it. Neither follows a link.
func ReadOrCreateToken(path string) (string, error) {
	tok, err := ReadGenerationToken(path)
	if errors.Is(err, ErrBadTokenFile) {
		return "", fmt.Errorf("%w; remove it to issue a new one", err)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return tok, err
	}
	tok = NewToken()
	if err := private.Create(path, []byte(tok+"\n")); errors.Is(err, fs.ErrExist) {
		return ReadOrCreateToken(path) // another first use won the race
	} else if err != nil {
		return "", fmt.Errorf("issue token: %w", err)
	}
	return tok, nil
}

// EnrolRequest is the body of POST /v1/operators: a human to enrol.
type EnrolRequest struct {
	// Name is the operator's name, with or without "human:".
	Name string `json:"name" limit:"name"`
	// UID, when set, binds the operator to that Unix user (SO_PEERCRED).
	UID *int `json:"uid,omitempty"`
	// SSHKeys are public keys in authorized_keys form (one a line) that
	// identify the human on the SSH console. With keys, enrolling a human
	// already enrolled lists the keys for them.
	SSHKeys string `json:"ssh_keys,omitempty"`
}

// Enrolled answers an enrolment or lists an operator: never the token,
// which stays in its 0600 file for the human to take.
type Enrolled struct {
	Principal string `json:"principal"`
	// TokenFile is where the token file is, on Host; absent for an
	// operator enrolled for SSH only, who has none.
	TokenFile string `json:"token_file,omitempty"`
	// Host is the host the operator was enrolled on (by a hub there).
	Host string `json:"host,omitempty"`
	// UID is the bound Unix user, absent when unbound.
	UID *int `json:"uid,omitempty"`
	// SSHKeys are the public keys listed for the human (the SSH console).
	SSHKeys []operatorkeys.Key `json:"ssh_keys,omitempty"`
}

// EnrolledOf is what may be said of enrolment e: never the token.
func EnrolledOf(e operators.Enrolment) Enrolled {
	out := Enrolled{Principal: e.Principal(), Host: e.Host}
	if !e.SSHOnly {
		out.TokenFile = OperatorTokenPath(e.Home, e.Name)
	}
	if e.UID != NoUID {
		uid := e.UID
		out.UID = &uid
	}
	return out
}

// Enrolled is what may be said of operator o of home: never the token.
func (o Operator) Enrolled(home string) Enrolled {
	e := Enrolled{Principal: "human:" + o.Name, TokenFile: OperatorTokenPath(home, o.Name)}
	if o.UID != NoUID {
		uid := o.UID
		e.UID = &uid
	}
	return e
}

// ErrLastOperator: removing the only enrolled operator would leave nobody
// to decide, and make the home a first install again.
var ErrLastOperator = operators.ErrLastOperator
