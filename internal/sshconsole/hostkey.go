package sshconsole

import (
	"errors"
	"fmt"
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
	k, err := private.Ed25519Key(HostKeyPath(home), "virgo-tui ssh console")
	if errors.Is(err, private.ErrNotAKey) {
		return nil, fmt.Errorf("%w: %w; move it away to have a new one generated, and tell the humans its new fingerprint", ErrBadHostKey, err)
	}
	if err != nil {
		return nil, fmt.Errorf("SSH host key: %w", err)
	}
	return gossh.NewSignerFromKey(k)
}
