package snapshot

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	gossh "golang.org/x/crypto/ssh"

	"github.com/virgo-hub/virgo-tui/internal/private"
)

// An installation signs its snapshots with a key of its own, not the SSH
// console's host key nor an operator's: each key has one job, so the
// console's host key can be replaced without making every snapshot
// unverifiable, and no human's key signs for the installation. It is made
// on first use (the first snapshot, or `snapshot key`): one place that
// covers a new home and a home made before snapshots existed.

// Named errors of keys.
var (
	// ErrBadKeyFile: the key file holds something this tool did not write.
	ErrBadKeyFile = errors.New("snapshot key file is not an ed25519 private key")
	// ErrBadPublicKey: text that is not an ed25519 public key in
	// authorized_keys form.
	ErrBadPublicKey = errors.New("not an ed25519 public key (ssh-ed25519 AAAA…)")
)

// keyComment is the comment the public key is printed with.
const keyComment = "virgo-snapshot"

// MaxTrusted bounds the keys a trusted-keys file may list.
const MaxTrusted = 64

// KeyPath is where a home keeps its snapshot signing key: 0600 in the
// home's 0700 keys directory, generated once, never rewritten.
func KeyPath(home string) string { return filepath.Join(home, "keys", "snapshot_ed25519_key") }

// TrustedPath is the home's list of other installations' snapshot keys it
// trusts, one authorized_keys line each (the operator writes it).
func TrustedPath(home string) string { return filepath.Join(home, "keys", "snapshot_trusted_keys") }

// InstallationKey reads the home's snapshot signing key, generating it on
// first use. Like every secret of the home it is read without following a
// link and must be the running user's, 0600.
func InstallationKey(home string) (ed25519.PrivateKey, error) {
	k, err := private.Ed25519Key(KeyPath(home), keyComment)
	if errors.Is(err, private.ErrNotAKey) {
		return nil, fmt.Errorf("%w: %w; move it away to have a new one made, and give the new public key to whoever trusts the old", ErrBadKeyFile, err)
	}
	if err != nil {
		return nil, fmt.Errorf("snapshot key: %w", err)
	}
	return k, nil
}

// FormatPublic is pub in authorized_keys form, as `snapshot key` prints it
// and a manifest names its signer.
func FormatPublic(pub ed25519.PublicKey) string {
	k, err := gossh.NewPublicKey(pub)
	if err != nil { // a key of the wrong length, which ed25519 never makes
		return "invalid key: " + err.Error()
	}
	return strings.TrimSpace(string(gossh.MarshalAuthorizedKey(k))) + " " + keyComment
}

// Fingerprint is pub's SHA-256 fingerprint, as ssh-keygen -l prints it.
func Fingerprint(pub ed25519.PublicKey) string {
	k, err := gossh.NewPublicKey(pub)
	if err != nil {
		return "invalid key"
	}
	return gossh.FingerprintSHA256(k)
}

// ParsePublic reads an ed25519 public key from an authorized_keys line.
func ParsePublic(line string) (ed25519.PublicKey, error) {
	k, _, _, _, err := gossh.ParseAuthorizedKey([]byte(line))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadPublicKey, err)
	}
	ck, ok := k.(gossh.CryptoPublicKey)
	if !ok {
		return nil, fmt.Errorf("%w: a %s key", ErrBadPublicKey, k.Type())
	}
	pub, ok := ck.CryptoPublicKey().(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("%w: a %s key", ErrBadPublicKey, k.Type())
	}
	return pub, nil
}

// ParseKeys reads the public keys of an authorized_keys-like text: one a
// line, blank lines and # comments skipped, at most MaxTrusted.
func ParseKeys(source string, b []byte) ([]ed25519.PublicKey, error) {
	var out []ed25519.PublicKey
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if len(out) == MaxTrusted {
			return nil, fmt.Errorf("%s: more than %d keys: %w", source, MaxTrusted, ErrTooLarge)
		}
		pub, err := ParsePublic(line)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", source, n, err)
		}
		out = append(out, pub)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return out, nil
}

// Trusted is the keys home trusts a snapshot from: its own, and those its
// trusted-keys file lists (none when there is no such file).
func Trusted(home string) ([]ed25519.PublicKey, error) {
	own, err := InstallationKey(home)
	if err != nil {
		return nil, err
	}
	out := []ed25519.PublicKey{own.Public().(ed25519.PublicKey)}
	b, err := private.ReadFile(TrustedPath(home))
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("trusted snapshot keys: %w", err)
	}
	more, err := ParseKeys(TrustedPath(home), b)
	return append(out, more...), err
}
