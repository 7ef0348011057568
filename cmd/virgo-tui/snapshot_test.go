package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A snapshot written by one installation verifies there, is refused
// elsewhere until its key is trusted, is refused when a byte changed, and
// restores into a fresh installation as a pending generation of the seat.
func TestSnapshotCommands(t *testing.T) {
	c := confirmSetup(t)
	file := filepath.Join(t.TempDir(), "lead.snap")
	wantContains(t, "persona snapshot", c.ok("persona", "snapshot", "work/core/lead", "-o", file),
		"verified", "Porrima (work/core/lead, generation 1, active)", "CAPABILITY-STAMP.json")
	wantContains(t, "an existing file", c.fails("persona", "snapshot", "work/core/lead", "-o", file), "exists")
	wantContains(t, "verify at home", c.ok("snapshot", "verify", file), "verified", "signed by SHA256:")
	key := strings.TrimSpace(c.ok("snapshot", "key"))
	if !strings.HasPrefix(key, "ssh-ed25519 ") {
		t.Fatalf("snapshot key printed %q", key)
	}

	d := newCLI(t)
	d.ok("operator", "add", "henry")
	wantContains(t, "verify elsewhere", d.fails("snapshot", "verify", file), "does not trust", "SHA256:")
	wantContains(t, "verify with --key", d.ok("snapshot", "verify", file, "--key", key), "verified")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 1
	bad := filepath.Join(t.TempDir(), "bad.snap")
	if err := os.WriteFile(bad, b, 0o600); err != nil {
		t.Fatal(err)
	}
	wantContains(t, "a flipped byte", d.fails("snapshot", "verify", bad, "--key", key), "bad.snap")
	wantContains(t, "restore untrusted", d.fails("snapshot", "restore", file, "--as", "human:henry"), "does not trust")
	wantContains(t, "restore", d.ok("snapshot", "restore", file, "--trust", key, "--as", "human:henry"),
		"registered Porrima (work/core/lead, generation 1), pending", "confirm approve", "match as they were")
}
