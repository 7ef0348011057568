package snapshot

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/confirm"
	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/registry/roster"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// fixture is a stamped work/core/lead with three learned choices (two in
// its experience layer, one in the class overlay) and a few owned records.
func fixture(t testing.TB) Contents {
	t.Helper()
	reg := roster.New(nil, registry.Home{})
	p, err := reg.Prepare(registry.Registration{Address: "work/core/lead", Name: "Spica", Human: "human:henry"})
	if err != nil {
		t.Fatal(err)
	}
	p.Generation = 1
	st, err := stamp.Build(stamp.InputFor(p, stamp.Bindings{}))
	if err != nil {
		t.Fatal(err)
	}
	hash, b, err := stamp.Write(t.TempDir(), st)
	if err != nil {
		t.Fatal(err)
	}
	p.StampHash, p.Composition = hash, registry.Compose(p.CharacterHash, hash)
	keys, err := confirm.KeysOf(&st, hash)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	choice := func(where confirm.Remember, url string, v confirm.Verdict) confirm.Choice {
		k := confirm.PromptKey{StampHash: keys.StampHash, HandlerAction: "deployment.publish",
			Target: confirm.Target{Kind: confirm.TargetExternal, Value: url}, Shape: "deploy"}
		if where == confirm.RememberClass {
			k.StampHash, k.ClassKey = "", keys.ClassKey
		}
		return confirm.Choice{Key: k, Verdict: v, Boundary: confirm.BoundaryPublication, Persona: p.Address, Profile: string(p.Profile),
			Where: where, Decider: confirm.Principal{Kind: confirm.PrincipalHuman, Name: "henry"}, ConfirmationID: "c-" + url, CreatedAt: at}
	}
	return Contents{
		Persona: p, Stamp: b,
		Experience: []confirm.Choice{choice(confirm.RememberPersona, "https://example.org/a", confirm.Allow),
			choice(confirm.RememberPersona, "https://example.org/b", confirm.Deny)},
		ClassOverlay: []confirm.Choice{choice(confirm.RememberClass, "https://example.org/c", confirm.Allow)},
		Session:      SessionOf(p.SessionLineage),
		Records: []Record{{Kind: RecordTask, ID: "t-1", SHA256: RecordDigest([]byte("task"))},
			{Kind: RecordRun, ID: "r-1", SHA256: RecordDigest([]byte("run"))}},
	}
}

func newKey(t testing.TB) ed25519.PrivateKey {
	t.Helper()
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func pub(k ed25519.PrivateKey) []ed25519.PublicKey {
	return []ed25519.PublicKey{k.Public().(ed25519.PublicKey)}
}

func TestEncodeIsDeterministicAndOpens(t *testing.T) {
	c, key := fixture(t), newKey(t)
	a, err := Encode(c, key)
	if err != nil {
		t.Fatal(err)
	}
	// the same state in another order gives the same bytes
	c2 := c
	c2.Experience = []confirm.Choice{c.Experience[1], c.Experience[0]}
	c2.Records = []Record{c.Records[1], c.Records[0]}
	b, err := Encode(c2, key)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatal("the same state encoded twice gives different bytes")
	}
	s, err := Open(a, pub(key))
	if err != nil {
		t.Fatal(err)
	}
	if s.Contents.Persona.ID != c.Persona.ID || !bytes.Equal(s.Contents.Stamp, c.Stamp) ||
		len(s.Contents.Experience) != 2 || len(s.Contents.ClassOverlay) != 1 || len(s.Contents.Records) != 2 {
		t.Fatalf("opened %+v", s.Contents)
	}
	// what opens encodes again to the same file
	again, err := Encode(s.Contents, key)
	if err != nil || !bytes.Equal(again, a) {
		t.Fatalf("re-encoding an opened snapshot differs (%v)", err)
	}
}

// A flipped byte anywhere in the file — every byte of the tar headers, the
// signature and the end-of-archive blocks, every 7th of the other members
// and their padding — is refused, and the refusal is one of the named
// errors.
func TestEveryFlippedByteIsRefused(t *testing.T) {
	c, key := fixture(t), newKey(t)
	b, err := Encode(c, key)
	if err != nil {
		t.Fatal(err)
	}
	named := []error{ErrTruncated, ErrMalformed, ErrNotSnapshot, ErrNewerFormat, ErrBadSignature, ErrUntrustedSigner, ErrDigestMismatch}
	data, err := readTar(b)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for off := range b {
		r := region(off, data)
		if r != MemberSignature && r != "the end-of-archive blocks" && !bytes.HasPrefix([]byte(r), []byte("the tar header")) && off%7 != 0 {
			continue
		}
		for _, mask := range []byte{0x01, 0x80} {
			bad := bytes.Clone(b)
			bad[off] ^= mask
			_, err := Open(bad, pub(key))
			if err == nil {
				t.Fatalf("byte %d (%s) flipped by %#x: opened", off, region(off, data), mask)
			}
			isNamed := false
			for _, n := range named {
				isNamed = isNamed || errors.Is(err, n)
			}
			if !isNamed {
				t.Fatalf("byte %d (%s): refused without a named error: %v", off, region(off, data), err)
			}
		}
		seen[r]++
	}
	// every class of offset was reached
	for _, m := range members {
		if seen["the tar header of "+m] != blockSize || seen[m] == 0 && len(data[slices.Index(members, m)]) > 0 {
			t.Errorf("member %s: %d header bytes and %d data bytes flipped", m, seen["the tar header of "+m], seen[m])
		}
	}
	if seen["the end-of-archive blocks"] != 2*blockSize {
		t.Errorf("%d end-of-archive bytes flipped", seen["the end-of-archive blocks"])
	}
}

// A member's flipped byte is named: the member and its digests.
func TestFlippedMemberIsNamed(t *testing.T) {
	c, key := fixture(t), newKey(t)
	b, _ := Encode(c, key)
	data, _ := readTar(b)
	off := 0
	for i := range 3 { // past manifest, signature and persona to the stamp
		off += blockSize + (len(data[i])+blockSize-1)/blockSize*blockSize
	}
	b[off+blockSize+10] ^= 1
	_, err := Open(b, pub(key))
	if !errors.Is(err, ErrDigestMismatch) || !bytes.Contains([]byte(err.Error()), []byte(MemberStamp)) {
		t.Fatalf("flipped stamp byte: %v, want %v naming %s", err, ErrDigestMismatch, MemberStamp)
	}
}

func TestEveryTruncationIsRefused(t *testing.T) {
	c, key := fixture(t), newKey(t)
	b, _ := Encode(c, key)
	for n := range len(b) {
		if _, err := Open(b[:n], pub(key)); !errors.Is(err, ErrTruncated) {
			t.Fatalf("cut to %d of %d bytes: %v, want %v", n, len(b), err, ErrTruncated)
		}
	}
	if _, err := Open(append(bytes.Clone(b), 0), pub(key)); !errors.Is(err, ErrMalformed) {
		t.Fatalf("a byte after the end: %v, want %v", err, ErrMalformed)
	}
}

// resign lays out data again with the manifest edited by edit and signed
// by key.
func resign(t *testing.T, b []byte, key ed25519.PrivateKey, edit func(*Manifest)) []byte {
	t.Helper()
	return resignBytes(t, b, key, func(manifest []byte) []byte {
		m, err := readManifest(manifest)
		if err != nil {
			t.Fatal(err)
		}
		edit(&m)
		if manifest, err = encodeJSON(m); err != nil {
			t.Fatal(err)
		}
		return manifest
	})
}

// resignBytes lays out data again with the manifest's bytes edited by edit
// and signed by key: a manifest no encoder of ours writes, as a forger
// holding the key could.
func resignBytes(t *testing.T, b []byte, key ed25519.PrivateKey, edit func([]byte) []byte) []byte {
	t.Helper()
	data, err := readTar(b)
	if err != nil {
		t.Fatal(err)
	}
	data[0] = edit(data[0])
	data[1] = encodeSignature(ed25519.Sign(key, data[0]))
	out, err := writeTar(data)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A manifest that gives its version twice has no one version: it is
// refused as malformed, naming the key, before either version is
// believed (encoding/json would keep the last and call it a newer format).
func TestAManifestWithAMemberTwiceIsMalformed(t *testing.T) {
	own := newKey(t)
	b, err := Encode(fixture(t), own)
	if err != nil {
		t.Fatal(err)
	}
	twice := resignBytes(t, b, own, func(m []byte) []byte {
		return bytes.Replace(m, []byte(`"version": 1,`), []byte(`"version": 1, "version": 99,`), 1)
	})
	if _, err := Open(twice, pub(own)); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), `"version" is given twice`) {
		t.Fatalf("a manifest with its version twice: %v; want %v naming the key", err, ErrMalformed)
	}
}

func TestForeignSignatureAndNewerFormatAreRefused(t *testing.T) {
	c, own, other := fixture(t), newKey(t), newKey(t)
	b, _ := Encode(c, own)
	for _, tc := range []struct {
		name string
		file []byte
		want error
	}{
		{"re-signed by another key, naming it", resign(t, b, other, func(m *Manifest) { m.Signer = FormatPublic(other.Public().(ed25519.PublicKey)) }), ErrUntrustedSigner},
		{"re-signed by another key, naming ours", resign(t, b, other, func(*Manifest) {}), ErrBadSignature},
		{"a newer format", resign(t, b, own, func(m *Manifest) { m.Version = Version + 1 }), ErrNewerFormat},
		{"another kind of file", resign(t, b, own, func(m *Manifest) { m.Format = "tarball" }), ErrNotSnapshot},
		{"a digest that is not the member's", resign(t, b, own, func(m *Manifest) { m.Members[2].SHA256 = RecordDigest(nil) }), ErrDigestMismatch},
		{"over the size limit", make([]byte, MaxBytes+1), ErrTooLarge},
	} {
		if _, err := Open(tc.file, pub(own)); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	// the other installation's key opens it once trusted
	foreign := resign(t, b, other, func(m *Manifest) { m.Signer = FormatPublic(other.Public().(ed25519.PublicKey)) })
	if _, err := Open(foreign, append(pub(own), pub(other)...)); err != nil {
		t.Fatalf("trusted foreign key: %v", err)
	}
}

// A snapshot that verifies still holds only what an installation stores.
func TestMembersAreHeldToTheirRules(t *testing.T) {
	key := newKey(t)
	for _, tc := range []struct {
		name string
		edit func(*Contents)
	}{
		{"a choice of another seat", func(c *Contents) { c.Experience[0].Persona = "work/other/lead" }},
		{"a class choice in the experience layer", func(c *Contents) { c.Experience[0] = c.ClassOverlay[0] }},
		{"a stamp that is not the record's", func(c *Contents) { c.Stamp = []byte("{}") }},
		{"another lineage", func(c *Contents) { c.Session.Lineage = "ses-other" }},
		{"another harness session", func(c *Contents) { c.Session.HarnessSessionID = SessionOf("ses-other").HarnessSessionID }},
		{"a record twice", func(c *Contents) { c.Records = append(c.Records, c.Records[0]) }},
		{"a record of no known kind", func(c *Contents) { c.Records[0].Kind = "token" }},
		{"a composition that does not cover the stamp", func(c *Contents) { c.Persona.Composition = "sha256:00" }},
	} {
		c := fixture(t)
		tc.edit(&c)
		if _, err := Encode(c, key); !errors.Is(err, ErrBadMember) {
			t.Errorf("%s: %v, want %v", tc.name, err, ErrBadMember)
		}
	}
}

func TestInstallationKeyIsMadeOnceAndPrivate(t *testing.T) {
	home := t.TempDir()
	k1, err := InstallationKey(home)
	if err != nil {
		t.Fatal(err)
	}
	k2, err := InstallationKey(home)
	if err != nil || !k1.Equal(k2) {
		t.Fatalf("second read: %v, same key %v", err, k1.Equal(k2))
	}
	fi, err := os.Stat(KeyPath(home))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v mode %v, want 0600", err, fi.Mode().Perm())
	}
	p, err := ParsePublic(FormatPublic(k1.Public().(ed25519.PublicKey)))
	if err != nil || !p.Equal(k1.Public()) {
		t.Fatalf("the printed public key reads back as %v (%v)", p, err)
	}
	// a trusted-keys file adds keys; a line that is no key is named
	other := newKey(t)
	line := FormatPublic(other.Public().(ed25519.PublicKey))
	if err := os.WriteFile(TrustedPath(home), []byte("# the staging install\n"+line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	trusted, err := Trusted(home)
	if err != nil || len(trusted) != 2 || !trusted[1].Equal(other.Public()) {
		t.Fatalf("trusted %d keys (%v)", len(trusted), err)
	}
	if err := os.WriteFile(TrustedPath(home), []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Trusted(home); !errors.Is(err, ErrBadPublicKey) {
		t.Fatalf("a bad trusted line: %v, want %v", err, ErrBadPublicKey)
	}
	// a key file someone else wrote is refused, not replaced
	if err := os.WriteFile(filepath.Join(home, "keys", "snapshot_ed25519_key"), []byte("junk"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := InstallationKey(home); !errors.Is(err, ErrBadKeyFile) {
		t.Fatalf("junk key file: %v, want %v", err, ErrBadKeyFile)
	}
}

func ExampleFingerprint() {
	fmt.Println(Fingerprint(make(ed25519.PublicKey, ed25519.PublicKeySize))[:7])
	// Output: SHA256:
}
