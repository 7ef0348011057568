package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"github.com/virgo-hub/virgo-tui/internal/hubapi"
	"github.com/virgo-hub/virgo-tui/internal/hubclient"
	"github.com/virgo-hub/virgo-tui/internal/registry"
)

// enrolledCLI is a home whose first operator, human:owner, was enrolled at
// first install with `operator add`, and where nobody else is enrolled by
// the test harness behind the test's back.
func enrolledCLI(t *testing.T) *cli {
	c := newCLI(t)
	c.asEnrolled = true
	wantContains(t, "first install", c.ok("operator", "add", "owner"), "enrolled human:owner", "operators/owner.token")
	return c
}

// "Anyone who runs as the home's user can become any human.
// Operator tokens are created on first use, so a persona runtime ... can mint
// operators/ada.token and approve what is routed to ada." Now acting as a
// human who is not enrolled is refused, and no token appears.
func TestHumansAreEnrolledNotMinted(t *testing.T) {
	c := enrolledCLI(t)
	c.ok("persona", "add", "--scope", "work", "--project", "core", "--role", "lead", "--name", "Porrima", "--human", "human:ada")
	wantContains(t, "not enrolled", c.fails("confirm", "list", "--as", "human:ada"),
		"human:ada: not an enrolled operator", `operator add ada`)
	if _, err := os.Stat(hubapi.OperatorTokenPath(c.home, "ada")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("acting as an unenrolled human left a token behind: %v", err)
	}
	// An enrolled operator enrols ada; then ada acts.
	wantContains(t, "enrol", c.ok("operator", "add", "ada", "--as", "human:owner"), "enrolled human:ada")
	wantContains(t, "ada acts", c.ok("confirm", "list", "--as", "human:ada"), "permission-change")
	wantContains(t, "twice", c.fails("operator", "add", "ada", "--as", "human:owner"), "already enrolled")
	list := c.ok("operator", "list", "-o", "json")
	var ops []hubapi.Enrolled
	if err := json.Unmarshal([]byte(list), &ops); err != nil || len(ops) != 2 {
		t.Fatalf("operator list: %v\n%s", err, list)
	}
	// A persona token cannot enrol anyone through the API.
	c.ok("confirm", "approve", firstPending(t, c, "human:ada"), "--as", "human:ada")
	rt, err := hubclient.Dial(context.Background(), c.home, hubclient.WithTokenFile(personaTokenFile(t, c, "work/core/lead")))
	if err == nil {
		_, err = rt.EnrolOperator(context.Background(), "mallory", hubapi.NoUID)
	}
	if !errors.Is(err, hubapi.ErrForbidden) && !errors.Is(err, hubclient.ErrNoHub) {
		t.Fatalf("a persona enrolling a human: %v, want forbidden", err)
	}
	if _, err := os.Stat(hubapi.OperatorTokenPath(c.home, "mallory")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a persona minted human:mallory: %v", err)
	}
}

// Removing an operator revokes their token; the last one stays.
func TestOperatorRemoveRevokes(t *testing.T) {
	c := enrolledCLI(t)
	c.ok("operator", "add", "ada", "--as", "human:owner")
	c.ok("confirm", "list", "--as", "human:ada")
	wantContains(t, "remove", c.ok("operator", "remove", "ada", "--as", "human:owner"), "removed human:ada")
	wantContains(t, "revoked", c.fails("confirm", "list", "--as", "human:ada"), "not an enrolled operator")
	wantContains(t, "last", c.fails("operator", "remove", "owner", "--as", "human:owner"), "last enrolled operator")
}

// An operator bound to a Unix user acts only from connections of that user
// (SO_PEERCRED): with the token in hand, another user is refused.
func TestOperatorBoundToAUIDActsOnlyAsThatUser(t *testing.T) {
	c := enrolledCLI(t)
	other := strconv.Itoa(os.Getuid() + 4242)
	wantContains(t, "bound", c.ok("operator", "add", "bob", "--uid", other, "--as", "human:owner"), "bound to uid "+other)
	wantContains(t, "wrong user", c.fails("confirm", "list", "--as", "human:bob"), "bound to uid "+other, "comes from uid")
	c.ok("operator", "add", "carol", "--uid", "self", "--as", "human:owner")
	c.ok("confirm", "list", "--as", "human:carol")
}

// firstPending is the id of the first confirmation pending for authority.
func firstPending(t *testing.T, c *cli, authority string) string {
	t.Helper()
	var list []struct{ ID, Authority string }
	if err := json.Unmarshal([]byte(c.ok("confirm", "list", "-o", "json", "--as", authority)), &list); err != nil {
		t.Fatal(err)
	}
	for _, x := range list {
		if x.Authority == authority {
			return x.ID
		}
	}
	t.Fatalf("nothing pending for %s", authority)
	return ""
}

// personaTokenFile is the runtime token file of the active holder of address.
func personaTokenFile(t *testing.T, c *cli, address string) string {
	t.Helper()
	var v struct{ Persona struct{ ID string } }
	if err := json.Unmarshal([]byte(c.ok("persona", "show", address, "-o", "json", "--as", "human:owner")), &v); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(c.home, "personas", v.Persona.ID, hubapi.TokenFile)
}

// "Symlinks and loose modes in the home are trusted": each finding
// is now refused at start with the path and the fix, and nothing outside the
// home is changed.
func TestTheHomeIsCheckedNotTrusted(t *testing.T) {
	mode := func(path string) os.FileMode {
		fi, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Perm()
	}
	t.Run("operators is a link to a world-writable directory with a planted token", func(t *testing.T) {
		c := enrolledCLI(t)
		elsewhere := t.TempDir()
		mustNil(t, os.Chmod(elsewhere, 0o1777))
		planted := filepath.Join(elsewhere, "mallory.token")
		mustNil(t, os.WriteFile(planted, []byte(hubapi.NewToken()+"\n"), 0o644))
		if os.Geteuid() == 0 {
			mustNil(t, os.Chown(planted, 4242, 4242)) // another user's, as in the finding
		}
		ops := filepath.Join(c.home, "operators")
		mustNil(t, os.Rename(ops, ops+".real"))
		mustNil(t, os.Symlink(elsewhere, ops))
		wantContains(t, "refused", c.fails("confirm", "list", "--as", "human:mallory"), ops, "symbolic link", "rm "+ops)
		if m := mode(planted); m != 0o644 {
			t.Fatalf("the planted token was changed to %o", m)
		}
	})
	t.Run("a pre-existing 0777 operators directory", func(t *testing.T) {
		c := enrolledCLI(t)
		ops := filepath.Join(c.home, "operators")
		mustNil(t, os.Chmod(ops, 0o777))
		wantContains(t, "refused", c.fails("confirm", "list", "--as", "human:owner"), ops, "mode 0777", "chmod 700 "+ops)
		if m := mode(ops); m != 0o777 {
			t.Fatalf("operators was chmod-ed to %o instead of refused", m)
		}
	})
	t.Run("run is a link", func(t *testing.T) {
		c := enrolledCLI(t)
		target := t.TempDir()
		mustNil(t, os.Chmod(target, 0o755))
		run := filepath.Join(c.home, "run")
		mustNil(t, os.RemoveAll(run))
		mustNil(t, os.Symlink(target, run))
		wantContains(t, "refused", c.fails("confirm", "list", "--as", "human:owner"), run, "symbolic link")
		if m := mode(target); m != 0o755 {
			t.Fatalf("the link's target was chmod-ed to %o", m)
		}
	})
	t.Run("a token readable by others", func(t *testing.T) {
		c := enrolledCLI(t)
		tok := hubapi.OperatorTokenPath(c.home, "owner")
		mustNil(t, os.Chmod(tok, 0o644))
		wantContains(t, "refused", c.fails("confirm", "list", "--as", "human:owner"), tok, "mode 0644", "chmod 600 "+tok)
	})
}

func mustNil(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// "a home path over the socket-path limit fails with bind:
// invalid argument without naming the limit". Now it is refused naming it.
func TestAnOverlongHomeNamesTheSocketLimit(t *testing.T) {
	c := newCLI(t)
	c.home = filepath.Join(c.home, strings.Repeat("h", 120))
	_, err := registry.CreateHome(c.home)
	mustNil(t, err)
	wantContains(t, "over-long home", c.fails("confirm", "list"), "108-byte sun_path", "use a shorter --home")
}

// "virgo-tui operator add NAME --ssh-key FILE|KEY records the
// public keys of a human; a key listed for two humans is refused."
func TestOperatorSSHKeys(t *testing.T) {
	c := newCLI(t)
	c.asEnrolled = true
	dir := t.TempDir()
	adaFile := filepath.Join(dir, "ada.pub")
	adaKey := testAuthorizedKey(t, "ada@laptop")
	if err := os.WriteFile(adaFile, []byte(adaKey+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// At first install, from a file; the answer names the fingerprint.
	wantContains(t, "first install with a key", c.ok("operator", "add", "owner", "--ssh-key", adaFile),
		"enrolled human:owner", "ssh key SHA256:", "ada@laptop")
	// Another human, the key's text; the same key for a third is refused.
	bobKey := testAuthorizedKey(t, "bob@phone")
	wantContains(t, "bob", c.ok("operator", "add", "bob", "--ssh-key", bobKey, "--as", "human:owner"), "enrolled human:bob", "bob@phone")
	wantContains(t, "taken", c.fails("operator", "add", "carol", "--ssh-key", adaFile, "--as", "human:owner"),
		"already listed for another human (human:owner)")
	if _, err := os.Stat(hubapi.OperatorTokenPath(c.home, "carol")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused key enrolment left carol a token: %v", err)
	}
	wantContains(t, "not a key", c.fails("operator", "add", "carol", "--ssh-key", "ssh-ed25519 nonsense", "--as", "human:owner"),
		"not an SSH public key")
	// More keys for a human already enrolled.
	bobDesk := testAuthorizedKey(t, "bob@desk")
	wantContains(t, "second key", c.ok("operator", "add", "bob", "--ssh-key", bobDesk, "--as", "human:owner"), "bob@desk", "bob@phone")

	// The task: "operator list ... go through the hub (GET /v1/operators,
	// hubclient) like operator add, showing each human's key fingerprints,
	// -o json". The keys live in the store, which only the hub reads.
	table := c.ok("operator", "list", "--as", "human:owner")
	for _, want := range []struct{ human, key string }{{"human:owner", adaKey}, {"human:bob", bobKey}, {"human:bob", bobDesk}} {
		fp := testFingerprint(t, want.key)
		line := ""
		for l := range strings.Lines(table) {
			if strings.HasPrefix(l, want.human+" ") {
				line = l
			}
		}
		if !strings.Contains(line, fp) {
			t.Errorf("operator list: %s's row %q lacks the fingerprint %s\n%s", want.human, line, fp, table)
		}
	}
	var ops []hubapi.Enrolled
	if err := json.Unmarshal([]byte(c.ok("operator", "list", "-o", "json", "--as", "human:owner")), &ops); err != nil {
		t.Fatal(err)
	}
	keys := map[string][]string{}
	for _, o := range ops {
		for _, k := range o.SSHKeys {
			keys[o.Principal] = append(keys[o.Principal], k.Fingerprint)
		}
	}
	if len(ops) != 2 || len(keys["human:owner"]) != 1 || len(keys["human:bob"]) != 2 ||
		keys["human:owner"][0] != testFingerprint(t, adaKey) {
		t.Fatalf("operator list -o json: %+v", ops)
	}
	// Through the hub, so as an enrolled operator only.
	wantContains(t, "unenrolled", c.fails("operator", "list", "--as", "human:mallory"), "not an enrolled operator")
}

func testFingerprint(t *testing.T, authorized string) string {
	t.Helper()
	pk, _, _, _, err := gossh.ParseAuthorizedKey([]byte(authorized))
	if err != nil {
		t.Fatal(err)
	}
	return gossh.FingerprintSHA256(pk)
}

func testAuthorizedKey(t *testing.T, comment string) string {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := gossh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(gossh.MarshalAuthorizedKey(pk))) + " " + comment
}
