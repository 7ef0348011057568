package private

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	gossh "golang.org/x/crypto/ssh"
)

// ErrNotAKey: a key file holds something that is not an ed25519 private
// key in OpenSSH form.
var ErrNotAKey = errors.New("not an ed25519 private key")

// Ed25519Key reads the ed25519 private key at path (OpenSSH form, read as
// every secret of the home is: no link, the running user's, 0600),
// generating it on first use with comment. A key is never replaced: when
// two processes make it at once, both read the one that was written first.
func Ed25519Key(path, comment string) (ed25519.PrivateKey, error) {
	b, err := ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := generateKey(path, comment); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		b, err = ReadFile(path)
	}
	if err != nil {
		return nil, err
	}
	raw, err := gossh.ParseRawPrivateKey(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (%v)", path, ErrNotAKey, err)
	}
	k, ok := raw.(*ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("%s: %w: it is a %T", path, ErrNotAKey, raw)
	}
	return *k, nil
}

// generateKey writes a new ed25519 key to path, refusing to replace one
// (fs.ErrExist).
func generateKey(path, comment string) error {
	if err := Dir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("key directory: %w", err)
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return fmt.Errorf("generate key: %w", err)
	}
	block, err := gossh.MarshalPrivateKey(priv, comment)
	if err != nil {
		return fmt.Errorf("encode key: %w", err)
	}
	return Create(path, pem.EncodeToMemory(block))
}
