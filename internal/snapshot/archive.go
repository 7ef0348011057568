package snapshot

import (
	"archive/tar"
	"bytes"
	"cmp"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/strictjson"
)

// Snapshot is a verified snapshot file: its manifest, the key that signed
// it, and what it carries.
type Snapshot struct {
	Manifest Manifest
	Signer   ed25519.PublicKey
	Contents Contents
}

// Encode makes the snapshot file of c, signed with key. The same contents
// and key give the same bytes (ed25519 signatures are deterministic).
// Contents that Open would refuse are refused here, so every file this
// writes opens.
func Encode(c Contents, key ed25519.PrivateKey) ([]byte, error) {
	c.Experience = sortedChoices(c.Experience)
	c.ClassOverlay = sortedChoices(c.ClassOverlay)
	c.Records = append([]Record{}, c.Records...)
	slices.SortFunc(c.Records, compareRecords)
	data := make([][]byte, len(members))
	var err error
	for i, v := range []any{c.Persona, nil, c.Experience, c.ClassOverlay, c.Session, c.Records} {
		name := signed[i]
		if name == MemberStamp {
			data[2+i] = c.Stamp
			continue
		}
		if data[2+i], err = encodeJSON(v); err != nil {
			return nil, fmt.Errorf("encode %s: %w", name, err)
		}
	}
	if err := check(c); err != nil {
		return nil, err
	}
	m := Manifest{Format: Format, Version: Version, Signer: FormatPublic(key.Public().(ed25519.PublicKey)), Persona: subjectOf(c.Persona)}
	for i, name := range signed {
		m.Members = append(m.Members, Digest{Name: name, Size: len(data[2+i]), SHA256: digest(data[2+i])})
	}
	if data[0], err = encodeJSON(m); err != nil {
		return nil, fmt.Errorf("encode %s: %w", MemberManifest, err)
	}
	data[1] = encodeSignature(ed25519.Sign(key, data[0]))
	b, err := writeTar(data)
	if err != nil {
		return nil, err
	}
	if len(b) > MaxBytes {
		return nil, fmt.Errorf("%w: the snapshot of %s is %d bytes, the limit is %d", ErrTooLarge, c.Persona.Address, len(b), MaxBytes)
	}
	return b, nil
}

// Open verifies a snapshot file and decodes it: its size, its layout (every
// byte as this format writes it), its format version, the manifest's
// signature, that a trusted key made it, and every member against its
// digest, in that order; the first thing that differs is named. Nothing of
// a file that fails is returned.
func Open(b []byte, trusted []ed25519.PublicKey) (Snapshot, error) {
	if len(b) > MaxBytes {
		return Snapshot{}, fmt.Errorf("%w: the file is over %d bytes", ErrTooLarge, MaxBytes)
	}
	data, err := readTar(b)
	if err != nil {
		return Snapshot{}, err
	}
	canon, err := writeTar(data)
	if err != nil {
		return Snapshot{}, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if err := sameBytes(b, canon, data); err != nil {
		return Snapshot{}, err
	}
	m, err := readManifest(data[0])
	if err != nil {
		return Snapshot{}, err
	}
	signer, err := ParsePublic(m.Signer)
	if err != nil {
		return Snapshot{}, fmt.Errorf("%w: %s names its signer %q: %w", ErrMalformed, MemberManifest, m.Signer, err)
	}
	sig, err := decodeSignature(data[1])
	if err != nil {
		return Snapshot{}, err
	}
	if !ed25519.Verify(signer, data[0], sig) {
		return Snapshot{}, fmt.Errorf("%w: %s and %s do not match: one of them changed after signing", ErrBadSignature, MemberManifest, MemberSignature)
	}
	if !slices.ContainsFunc(trusted, func(k ed25519.PublicKey) bool { return signer.Equal(k) }) {
		return Snapshot{}, fmt.Errorf("%w: signed by %s (%s); trust it with --trust or the trusted-keys file if it is the installation you expect", ErrUntrustedSigner,
			Fingerprint(signer), m.Signer)
	}
	if len(m.Members) != len(signed) {
		return Snapshot{}, fmt.Errorf("%w: %s lists %d members, the format has %d", ErrMalformed, MemberManifest, len(m.Members), len(signed))
	}
	for i, d := range m.Members {
		got := data[2+i]
		switch {
		case d.Name != signed[i]:
			return Snapshot{}, fmt.Errorf("%w: %s lists %q where %q belongs", ErrMalformed, MemberManifest, d.Name, signed[i])
		case d.Size != len(got):
			return Snapshot{}, fmt.Errorf("%w: %s is %d bytes, the manifest says %d", ErrDigestMismatch, d.Name, len(got), d.Size)
		case d.SHA256 != digest(got):
			return Snapshot{}, fmt.Errorf("%w: %s has sha256 %s, the manifest says %s", ErrDigestMismatch, d.Name, digest(got), d.SHA256)
		}
	}
	c, err := decodeContents(data)
	if err != nil {
		return Snapshot{}, err
	}
	if subjectOf(c.Persona) != m.Persona {
		return Snapshot{}, fmt.Errorf("%w: %s names %+v, %s is %+v", ErrBadMember, MemberManifest, m.Persona, MemberPersona, subjectOf(c.Persona))
	}
	if err := check(c); err != nil {
		return Snapshot{}, err
	}
	return Snapshot{Manifest: m, Signer: signer, Contents: c}, nil
}

// epoch is every member's modification time: the state, not the moment
// it was written, decides the bytes.
var epoch = time.Unix(0, 0)

// blockSize is tar's block.
const blockSize = 512

// writeTar lays out data as the members in file order.
func writeTar(data [][]byte) ([]byte, error) {
	size := 2 * blockSize
	for _, d := range data {
		size += blockSize + (len(d)+blockSize-1)/blockSize*blockSize
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	tw := tar.NewWriter(buf)
	for i, name := range members {
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(data[i])), ModTime: epoch, Format: tar.FormatUSTAR}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, fmt.Errorf("write %s: %w", name, err)
		}
		if _, err := tw.Write(data[i]); err != nil {
			return nil, fmt.Errorf("write %s: %w", name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// readTar reads the members of b, which must be the format's, in its order.
func readTar(b []byte) ([][]byte, error) {
	r := bytes.NewReader(b)
	tr := tar.NewReader(r)
	data := make([][]byte, len(members))
	for i, name := range members {
		at := len(b) - r.Len()
		hdr, err := tr.Next()
		switch {
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return nil, fmt.Errorf("%w: it ends at byte %d, where the header of %s belongs", ErrTruncated, len(b), name)
		case err != nil:
			return nil, fmt.Errorf("%w: the tar header at byte %d (of %s): %v", ErrMalformed, at, name, err)
		case hdr.Name != name || hdr.Typeflag != tar.TypeReg:
			return nil, fmt.Errorf("%w: member %d is %q, where %s belongs", ErrMalformed, i+1, hdr.Name, name)
		case hdr.Size > MaxBytes:
			return nil, fmt.Errorf("%w: %s claims %d bytes", ErrTooLarge, name, hdr.Size)
		}
		d, err := io.ReadAll(tr)
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%w: it ends inside %s", ErrTruncated, name)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrMalformed, name, err)
		}
		data[i] = d
	}
	return data, nil
}

// sameBytes refuses b unless it is canon, the layout of its own members,
// naming where the first byte that differs lies.
func sameBytes(b, canon []byte, data [][]byte) error {
	n := min(len(b), len(canon))
	off := 0
	for off < n && b[off] == canon[off] {
		off++
	}
	switch {
	case off == len(b) && off == len(canon):
		return nil
	case off == len(b):
		return fmt.Errorf("%w: it ends at byte %d, inside %s", ErrTruncated, off, region(off, data))
	case off == len(canon):
		return fmt.Errorf("%w: %d bytes follow the end of the archive", ErrMalformed, len(b)-len(canon))
	}
	return fmt.Errorf("%w: byte %d, in %s, is not as this format writes it", ErrMalformed, off, region(off, data))
}

// region names what lies at off in the layout of data.
func region(off int, data [][]byte) string {
	at := 0
	for i, name := range members {
		if off < at+blockSize {
			return "the tar header of " + name
		}
		at += blockSize
		if off < at+len(data[i]) {
			return name
		}
		at += len(data[i])
		pad := (blockSize - len(data[i])%blockSize) % blockSize
		if off < at+pad {
			return "the padding after " + name
		}
		at += pad
	}
	return "the end-of-archive blocks"
}

// readManifest decodes the manifest, its format and version first: a
// newer format is refused before any field of it is trusted.
func readManifest(b []byte) (Manifest, error) {
	var head struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if err := strictjson.DecodeOpen(b, &head); err != nil {
		return Manifest{}, fmt.Errorf("%w: %s: %v", ErrMalformed, MemberManifest, err)
	}
	switch {
	case head.Format != Format:
		return Manifest{}, fmt.Errorf("%w: %s names format %q", ErrNotSnapshot, MemberManifest, head.Format)
	case head.Version > Version:
		return Manifest{}, fmt.Errorf("%w: version %d, this virgo-tui reads up to %d: upgrade virgo-tui to read it", ErrNewerFormat, head.Version, Version)
	case head.Version < 1:
		return Manifest{}, fmt.Errorf("%w: %s names version %d", ErrMalformed, MemberManifest, head.Version)
	}
	var m Manifest
	if err := decodeJSON(MemberManifest, b, &m); err != nil {
		return Manifest{}, err
	}
	return m, nil
}

// decodeContents decodes the members after the signature.
func decodeContents(data [][]byte) (Contents, error) {
	var c Contents
	for i, v := range []any{&c.Persona, nil, &c.Experience, &c.ClassOverlay, &c.Session, &c.Records} {
		if v == nil {
			c.Stamp = data[2+i]
			continue
		}
		if err := decodeJSON(signed[i], data[2+i], v); err != nil {
			return Contents{}, err
		}
	}
	return c, nil
}

// encodeJSON is a member's canonical bytes: indented for the operator
// who extracts it, one trailing newline.
func encodeJSON(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	return append(b, '\n'), err
}

// decodeJSON decodes member name strictly — no unknown field, no name
// twice, nothing but the encoder's own bytes — so that one document has
// one encoding.
func decodeJSON(name string, b []byte, v any) error {
	if err := strictjson.Decode(b, v); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrMalformed, name, err)
	}
	again, err := encodeJSON(reflect.ValueOf(v).Elem().Interface())
	if err != nil || !bytes.Equal(again, b) {
		return fmt.Errorf("%w: %s is not in the canonical form this format writes", ErrMalformed, name)
	}
	return nil
}

// encodeSignature is the signature member: base64 and a newline.
func encodeSignature(sig []byte) []byte {
	return []byte(base64.StdEncoding.EncodeToString(sig) + "\n")
}

func decodeSignature(b []byte) ([]byte, error) {
	sig, err := base64.StdEncoding.DecodeString(string(bytes.TrimSuffix(b, []byte("\n"))))
	if err != nil || len(sig) != ed25519.SignatureSize || !bytes.Equal(encodeSignature(sig), b) {
		return nil, fmt.Errorf("%w: %s is not one base64 ed25519 signature", ErrBadSignature, MemberSignature)
	}
	return sig, nil
}

// digest is "sha256:" and the hex SHA-256 of b.
func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// RecordDigest is the digest a snapshot lists for a record's stored bytes.
func RecordDigest(b []byte) string { return digest(b) }

func compareRecords(a, b Record) int {
	return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.ID, b.ID))
}
