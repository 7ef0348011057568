package stamp

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/virgo-hub/virgo-tui/internal/strictjson"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gowebpki/jcs"
)

// HashPrefix marks the algorithm of a stamp hash.
const HashPrefix = "sha256:"

// MaxBytes bounds a stamp file: the store keeps every generation's stamp
// bytes beside its record, written in the registration's one transaction,
// which must stay within the store's limits (store.MaxTxnBytes, 1.25 MiB,
// etcd's request size). A factory stamp is about 5 KiB; 64 KiB leaves
// room for every tool of the inventory and long bindings.
const MaxBytes = 64 << 10

// Hash is SHA-256 over the RFC 8785 (JCS) canonical form of a stamp file's
// JSON, hex-encoded with HashPrefix, so any language can recompute it:
// canonicalize with a JCS library, then sha256.
func Hash(b []byte) (string, error) {
	canon, err := jcs.Transform(b)
	if err != nil {
		return "", fmt.Errorf("hash stamp: %w: %w", ErrInvalidStamp, err)
	}
	sum := sha256.Sum256(canon)
	return HashPrefix + hex.EncodeToString(sum[:]), nil
}

// Write validates s with both validators, then writes it as FileName (0600)
// into dir, the generation's private directory, exclusively: an existing
// stamp is never overwritten (ErrStampExists). It returns the stamp hash the
// persona's composition records and the bytes written, which the store
// keeps too.
func Write(dir string, s Stamp) (string, []byte, error) {
	p := filepath.Join(dir, FileName)
	b, h, err := encode(s, p)
	if err != nil {
		return "", nil, err
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return "", nil, fmt.Errorf("write %s: %w; a new generation gets a new directory", p, ErrStampExists)
	}
	if err != nil {
		return "", nil, fmt.Errorf("write stamp: %w", err)
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(p) // the half-written file is ours; never leave it as a stamp
		return "", nil, fmt.Errorf("write %s: %w", p, err)
	}
	return h, b, nil
}

// Encode validates s with both validators, as Write does, and returns the
// hash of the file Write would write, writing nothing: what a
// registration's preview shows is what registration writes.
func Encode(s Stamp) (string, error) {
	_, h, err := encode(s, FileName)
	return h, err
}

// encode is the bytes and hash of s as a stamp file at path, validated.
func encode(s Stamp, path string) ([]byte, string, error) {
	b, err := Marshal(s)
	if err != nil {
		return nil, "", err
	}
	if len(b) > MaxBytes {
		return nil, "", tooLarge(path, int64(len(b)))
	}
	if _, err := validStamp(s, b, path); err != nil {
		return nil, "", err
	}
	h, err := Hash(b)
	if err != nil {
		return nil, "", err
	}
	return b, h, nil
}

// Verify reads stamp bytes from source (a file, or the store's copy) as
// Load does: refused when they do not hash to wantHash (ErrHashMismatch),
// then read with Read (version dispatch and both validators).
func Verify(source string, b []byte, wantHash string) (Stamp, error) {
	if err := VerifyHash(source, b, wantHash); err != nil {
		return Stamp{}, err
	}
	return readHashed(source, b)
}

// Decode returns the stamp of bytes that passed Verify before, without
// hashing or validating them again: the same bytes are the same stamp. It
// is for a reader that kept a digest of exactly the bytes it verified and
// compared it (usecase's stamp cache, which drops parsed stamps past its
// bound and reads them again); any other bytes go through Verify.
func Decode(source string, b []byte) (Stamp, error) {
	var probe versionProbe
	if err := strictjson.DecodeOpen(b, &probe); err != nil {
		return Stamp{}, undecodable(source, err)
	}
	if string(probe.SchemaVersion) != "3" {
		// A legacy stamp is mapped by its reader (rare: an older home's).
		return readHashed(source, b)
	}
	var s Stamp
	if err := strictjson.Decode(b, &s); err != nil {
		return Stamp{}, undecodable(source, err)
	}
	return s, nil
}

// VerifyHash refuses stamp bytes from source that do not hash to wantHash
// (ErrHashMismatch), reading nothing else of them. Bytes that hash to a
// recorded hash are the stamp that was validated when the hash was
// recorded, so a copy of a stamp already read (a host's local copy, the
// stamp a hub served) needs only this.
func VerifyHash(source string, b []byte, wantHash string) error {
	if wantHash == "" {
		return fmt.Errorf("load %s: %w", source, ErrHashRequired)
	}
	got, err := Hash(b)
	if err != nil {
		return fmt.Errorf("load %s: %w", source, err)
	}
	if got != wantHash {
		return fmt.Errorf("load %s: %w: recorded %s, the bytes are %s", source, ErrHashMismatch, wantHash, got)
	}
	return nil
}
