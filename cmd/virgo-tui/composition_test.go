package main

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/registry"
	"github.com/virgo-hub/virgo-tui/internal/registry/roster"
	"github.com/virgo-hub/virgo-tui/internal/store"
	"github.com/virgo-hub/virgo-tui/internal/store/boltstore"
)

// persona show prints the generation's composition hash, which covers its
// stamp (spec: the stamp "is covered by its composition hash"), in the
// table and in -o json; a record whose composition no longer covers its
// stamp hash (changed in the store behind the registry) is not standing,
// named, and authorize refuses it.
func TestPersonaShowsItsCompositionAndStandsOnIt(t *testing.T) {
	c := newCLI(t)
	r := c.activate("--scope", "work", "--project", "core", "--role", "lead", "--name", "Spica")
	id := r.Persona["id"].(string)
	var v struct {
		Persona registry.Persona `json:"persona"`
	}
	if err := json.Unmarshal([]byte(c.ok("persona", "show", "work/core/lead", "-o", "json")), &v); err != nil {
		t.Fatal(err)
	}
	p := v.Persona
	want := registry.Compose(p.CharacterHash, p.StampHash)
	if p.ID != id || p.StampHash == "" || p.Composition != want {
		t.Fatalf("persona show -o json: composition %q (stamp %s), want %s", p.Composition, p.StampHash, want)
	}
	out := c.ok("persona", "show", "work/core/lead")
	if !regexp.MustCompile(`(?m)^composition +` + regexp.QuoteMeta(want) + `$`).MatchString(out) {
		t.Fatalf("persona show does not print the composition %s:\n%s", want, out)
	}
	wantStandingRow(t, out)

	// No hub runs between commands here: the test holds the database.
	ctx := context.Background()
	st, err := boltstore.Open(registry.Home{Dir: c.home}.DBPath(), boltstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p.Composition = registry.Compose(p.CharacterHash, "")
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.Txn(ctx, nil, []store.Op{store.Put(roster.PrefixPersona+p.ID, b)})
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	wantContains(t, "persona show of a record whose composition does not cover its stamp",
		c.ok("persona", "show", "work/core/lead"), "standing", "no: ", "persona composition mismatch")
	wantContains(t, "authorize of it", c.fails("authorize", "--persona", "work/core/lead", "--tool", "workspace_write",
		"--target", "path:memory/notes.md", "--shape", "write:overwrite"), "persona composition mismatch")
}
