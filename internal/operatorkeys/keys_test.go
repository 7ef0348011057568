package operatorkeys

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

func authorizedKey(t *testing.T, comment string) string {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pk))) + " " + comment
}

func TestParse(t *testing.T) {
	good := authorizedKey(t, "ada@laptop")
	keys, err := Parse("# ada's keys\n\n" + good + "\n")
	if err != nil || len(keys) != 1 || keys[0].Comment != "ada@laptop" || !strings.HasPrefix(keys[0].Fingerprint, "SHA256:") {
		t.Fatalf("Parse(a public key file) = %+v, %v", keys, err)
	}
	for name, text := range map[string]string{
		"not a key":      "hello",
		"options":        `command="/bin/sh" ` + good,
		"escape comment": authorizedKey(t, "ada\x1b]0;pwned\x07"),
		"bidi comment":   authorizedKey(t, "ada\u202e"),
		"long comment":   authorizedKey(t, strings.Repeat("a", MaxComment+1)),
		"private key":    "-----BEGIN OPENSSH PRIVATE KEY-----",
	} {
		if _, err := Parse(text); !errors.Is(err, ErrBadKey) {
			t.Errorf("%s: Parse = %v, want ErrBadKey", name, err)
		}
	}
	if _, err := Parse("\n# nothing\n"); !errors.Is(err, ErrNoKeys) {
		t.Errorf("no keys: Parse = %v, want ErrNoKeys", err)
	}
	many := strings.Repeat(good+"\n", MaxKeys+1)
	if _, err := Parse(many); !errors.Is(err, ErrBadKey) {
		t.Errorf("%d keys: Parse = %v, want ErrBadKey", MaxKeys+1, err)
	}
}
