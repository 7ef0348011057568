package stamp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

func TestSameInputsGiveTheSameBytesAndHash(t *testing.T) {
	for _, p := range registry.Profiles {
		first := mustMarshal(t, mustBuild(t, seats[p]))
		h1, _ := Hash(first)
		for i := 0; i < 20; i++ {
			again := mustMarshal(t, mustBuild(t, seats[p]))
			if !bytes.Equal(first, again) {
				t.Fatalf("%s: build %d gave different bytes", p, i)
			}
			if h, _ := Hash(again); h != h1 {
				t.Fatalf("%s: hash %s != %s", p, h, h1)
			}
		}
	}
}

func TestHashIsSHA256OfTheJCSForm(t *testing.T) {
	// "Stamp hash: SHA-256 over the RFC 8785 (JCS) canonical form", so any
	// language can recompute it. Reformatting the file keeps the hash.
	b := mustMarshal(t, mustBuild(t, "work/core/lead"))
	canon, err := jcs.Transform(b)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(canon)
	want := "sha256:" + hex.EncodeToString(sum[:])
	got, _ := Hash(b)
	if got != want {
		t.Fatalf("Hash = %s, want %s", got, want)
	}
	if h, _ := Hash(canon); h != want {
		t.Errorf("the canonical form itself hashes to %s", h)
	}
}

func TestWriteOnceOwnerPrivateThenLoad(t *testing.T) {
	dir := t.TempDir()
	s := mustBuild(t, "work/core/deputy")
	h, written, err := Write(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, FileName)
	if b, _ := os.ReadFile(p); !bytes.Equal(b, written) {
		t.Fatal("Write returned other bytes than it wrote (the store keeps the ones it returns)")
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("stamp mode %v, want 0600", fi.Mode().Perm())
	}
	before, _ := os.ReadFile(p)
	// "an existing stamp is never overwritten"
	other := mustBuild(t, "work/core/deputy")
	other.Persona.Generation = 2
	if _, _, err := Write(dir, other); !errors.Is(err, ErrStampExists) {
		t.Fatalf("second Write = %v, want ErrStampExists", err)
	}
	after, _ := os.ReadFile(p)
	if !bytes.Equal(before, after) {
		t.Fatal("the existing stamp changed")
	}
	got, err := load(p, h)
	if err != nil {
		t.Fatal(err)
	}
	if got.Path.Address != "work/core/deputy" || len(got.Tools) != len(s.Tools) {
		t.Errorf("loaded %+v", got.Path)
	}
	if _, err := load(p, ""); !errors.Is(err, ErrHashRequired) {
		t.Errorf("Load without hash = %v", err)
	}
}

func TestOneByteChangeIsDetected(t *testing.T) {
	dir := t.TempDir()
	h, _, err := Write(dir, mustBuild(t, "root/secretary"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, FileName)
	b, _ := os.ReadFile(p)
	i := bytes.Index(b, []byte(`"confirm"`))
	b[i+1] = 'C' // "Confirm": one byte
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = load(p, h)
	if !errors.Is(err, ErrHashMismatch) {
		t.Fatalf("Load of a changed stamp = %v, want ErrHashMismatch", err)
	}
	if !strings.Contains(err.Error(), h) {
		t.Errorf("error does not show the recorded hash: %v", err)
	}
}

// A stamp over MaxBytes could not share its registration's transaction in
// the store: it is refused before anything is written.
func TestStampOverMaxBytesIsRefused(t *testing.T) {
	dir := t.TempDir()
	s := mustBuild(t, "work/core/deputy")
	s.Path.Address = strings.Repeat("a", MaxBytes)
	if _, _, err := Write(dir, s); !errors.Is(err, ErrStampTooLarge) {
		t.Fatalf("Write of a %d-byte address = %v, want ErrStampTooLarge", MaxBytes, err)
	}
	if _, err := os.Stat(filepath.Join(dir, FileName)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused stamp left a file: %v", err)
	}
}
