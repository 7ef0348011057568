package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// The spec: "Startup fails if the stamp is missing". With a persona's
// CAPABILITY-STAMP.json moved away, persona show says it is not standing
// and why (each command starts a hub of its own here, so this is a hub
// started while the file is missing), and authorize refuses; put back, it
// stands again.
func TestPersonaShowAndAuthorizeWithoutTheStampFile(t *testing.T) {
	c := newCLI(t)
	r := c.activate("--scope", "work", "--project", "core", "--role", "lead", "--name", "Spica")
	id := r.Persona["id"].(string)
	path := filepath.Join(registry.Home{Dir: c.home}.GenerationDir(id), stamp.FileName)
	authorize := []string{"authorize", "--persona", "work/core/lead", "--tool", "workspace_write",
		"--target", "path:memory/notes.md", "--shape", "write:overwrite"}
	wantStandingRow(t, c.ok("persona", "show", "work/core/lead"))
	c.ok(authorize...)

	if err := os.Rename(path, path+".moved"); err != nil {
		t.Fatal(err)
	}
	wantContains(t, "persona show without the stamp file", c.ok("persona", "show", "work/core/lead"),
		"standing", "no: not standing: capability stamp file missing", stamp.FileName)
	var v struct {
		Standing *struct {
			Standing bool   `json:"standing"`
			Problem  string `json:"problem"`
		} `json:"standing"`
	}
	if err := json.Unmarshal([]byte(c.ok("persona", "show", "work/core/lead", "-o", "json")), &v); err != nil {
		t.Fatal(err)
	}
	if v.Standing == nil || v.Standing.Standing || v.Standing.Problem == "" {
		t.Fatalf("persona show -o json without the stamp file: standing %+v, want false with the problem", v.Standing)
	}
	wantContains(t, "authorize without the stamp file", c.fails(authorize...), "capability stamp file missing", stamp.FileName)

	if err := os.Rename(path+".moved", path); err != nil {
		t.Fatal(err)
	}
	wantStandingRow(t, c.ok("persona", "show", "work/core/lead"))
	c.ok(authorize...)
}

// wantStandingRow asserts persona show's table says the persona stands.
func wantStandingRow(t *testing.T, out string) {
	t.Helper()
	if !regexp.MustCompile(`(?m)^standing +yes$`).MatchString(out) {
		t.Fatalf("persona show does not say the persona stands:\n%s", out)
	}
}

// persona add refuses a credential given as the character composition or
// the session lineage, saying so without repeating it; stamps carry
// bindings only.
func TestPersonaAddRefusesCredentials(t *testing.T) {
	c := newCLI(t)
	for _, tc := range [][]string{
		{"--character", "client_secret:s3cr3t_value"},
		{"--session", "api_token:ghp_0123456789abcdefghijABCDEFGHIJ012345"},
	} {
		args := append([]string{"persona", "add", "--scope", "work", "--project", "core", "--role", "lead", "--name", "Spica"}, tc...)
		errOut := c.fails(args...)
		wantContains(t, "persona add "+tc[0], errOut, "looks like a credential", "stamps carry bindings only")
		if strings.Contains(errOut, tc[1]) {
			t.Errorf("persona add %s repeats the credential: %s", tc[0], errOut)
		}
	}
	c.activate("--scope", "work", "--project", "core", "--role", "lead", "--name", "Spica")
}
