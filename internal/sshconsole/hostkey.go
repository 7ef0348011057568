package sshconsole

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	gossh "golang.org/x/crypto/ssh"

	"github.com/virgo-hub/virgo-tui/internal/private"
)

// HostKeyPath is where a home keeps the SSH console's host key: generated
// once (ed25519), 0600 in a 0700 directory, never rewritten, so that a
// client that pinned its fingerprint keeps trusting the same server.
func HostKeyPath(home string) string { return filepath.Join(home, "ssh", "host_ed25519_key") }

// ErrBadHostKey: the host key file holds something this tool did not write.
var ErrBadHostKey = errors.New("SSH host key file is not a private key")

// HostKey reads the home's host key, generating it on first use. Like
// every secret of the home it is read without following a link and must be
// the running user's, 0600.
func HostKey(home string) (gossh.Signer, error) {
	path := HostKeyPath(home)
	b, err := private.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := generateHostKey(path); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		b, err = private.ReadFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("SSH host key: %w", err)
	}
	signer, err := gossh.ParsePrivateKey(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (%v); move it away to have a new one generated, and tell the humans its new fingerprint", path, ErrBadHostKey, err)
	}
	return signer, nil
}

// generateHostKey writes a new ed25519 host key to path, refusing to
// replace one (fs.ErrExist): two hubs starting at once keep one key.
func generateHostKey(path string) error {
	if err := private.Dir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("SSH host key directory: %w", err)
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return fmt.Errorf("generate SSH host key: %w", err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "virgo-tui ssh console")
	if err != nil {
		return fmt.Errorf("encode SSH host key: %w", err)
	}
	return private.Create(path, pem.EncodeToMemory(block))
}
