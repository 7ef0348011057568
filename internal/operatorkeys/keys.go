// Package operatorkeys holds the SSH public keys of the enrolled humans as
// values: how a key is read from an authorized_keys line, its fingerprint
// and its named errors. operatorkeys/keyring stores them, one record per
// key, and keeps the rule that makes a key a human's identity on the SSH
// console: a key is listed for at most one human.
package operatorkeys

import (
	"bufio"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/ssh"

	"github.com/virgo-hub/virgo-tui/internal/termtext"
)

// MaxKeys bounds the keys read from one --ssh-key argument or file, and
// MaxComment a key's comment, so an enrolment cannot grow the store or a
// listing without end.
const (
	MaxKeys    = 16
	MaxComment = 256
)

// Named errors of operator keys.
var (
	// ErrBadKey: text that is not an SSH public key (an authorized_keys line).
	ErrBadKey = errors.New("not an SSH public key")
	// ErrKeyTaken: a key already listed for another human; one key names
	// one human.
	ErrKeyTaken = errors.New("SSH key is already listed for another human")
	// ErrUnknownKey: a key listed for nobody.
	ErrUnknownKey = errors.New("SSH key is not listed for any enrolled human")
	// ErrNoKeys: an enrolment of keys that holds none.
	ErrNoKeys = errors.New("no SSH public key given")
)

// Key is one human's public key as stored.
type Key struct {
	// Human is the principal the key names, "human:<name>".
	Human string `json:"human"`
	// Fingerprint is the key's SHA-256 fingerprint, "SHA256:…", as ssh-keygen -l prints it.
	Fingerprint string `json:"fingerprint"`
	// Authorized is the key in authorized_keys form, without its comment.
	Authorized string `json:"key"`
	// Comment is the comment the key came with (checked clean), if any.
	Comment string `json:"comment,omitempty"`
}

// Fingerprint is the SHA-256 fingerprint of k, as ssh-keygen -l prints it
// and as the audit log records it.
func Fingerprint(k ssh.PublicKey) string { return ssh.FingerprintSHA256(k) }

// Parse reads public keys in authorized_keys form, one a line; blank lines
// and # comments are skipped. Options before a key are refused: a console
// key is a key, nothing more. Every bad line is refused, naming its number.
func Parse(text string) ([]Key, error) {
	var out []Key
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 64<<10)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		pk, comment, options, rest, err := ssh.ParseAuthorizedKey([]byte(line))
		switch {
		case err != nil:
			return nil, fmt.Errorf("line %d: %w (want \"ssh-ed25519 AAAA… comment\", as in ~/.ssh/id_ed25519.pub)", n, ErrBadKey)
		case len(options) > 0:
			return nil, fmt.Errorf("line %d: %w: options (%s) are not taken; give the key alone", n, ErrBadKey, termtext.Clean(strings.Join(options, ",")))
		case len(rest) > 0:
			return nil, fmt.Errorf("line %d: %w: one key a line", n, ErrBadKey)
		case len(comment) > MaxComment:
			return nil, fmt.Errorf("line %d: %w: the comment is over %d bytes", n, ErrBadKey, MaxComment)
		case termtext.Check(comment, false) != nil:
			return nil, fmt.Errorf("line %d: %w: the comment holds a control, bidi or invisible character", n, ErrBadKey)
		}
		if len(out) == MaxKeys {
			return nil, fmt.Errorf("%w: more than %d keys at once", ErrBadKey, MaxKeys)
		}
		out = append(out, Key{
			Fingerprint: Fingerprint(pk),
			Authorized:  strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pk))),
			Comment:     comment,
		})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadKey, err)
	}
	if len(out) == 0 {
		return nil, ErrNoKeys
	}
	return out, nil
}
