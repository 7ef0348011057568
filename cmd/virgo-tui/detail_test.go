package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/stamp"
)

// An activation's class-matrix diff is stored compressed (docs/store.md):
// persona add, confirm show (text and JSON) and confirm list, pending and
// once decided, all show the very text the stamps render, byte for byte.
func TestActivationDetailShownWholeEverywhere(t *testing.T) {
	c := newCLI(t)
	r := c.add("--scope", "work", "--project", "core", "--role", "lead", "--name", "Heze", "--human", "human:henry")
	b, err := os.ReadFile(filepath.Join(c.home, "personas", r.Persona["id"].(string), "CAPABILITY-STAMP.json"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := stamp.Read(b)
	if err != nil {
		t.Fatal(err)
	}
	want := stamp.RenderDiff(stamp.Diff(stamp.Stamp{}, st))
	if r.Confirmation.Detail != want {
		t.Fatalf("persona add -o json shows the detail\n%q\nwant\n%q", r.Confirmation.Detail, want)
	}
	id := r.Confirmation.ID
	shown := func(when string) {
		t.Helper()
		if out := c.ok("confirm", "show", id); !strings.Contains(out, "\n"+want) {
			t.Errorf("confirm show, %s:\n%s\nwant the detail\n%s", when, out, want)
		}
		var one struct{ Detail string }
		if err := json.Unmarshal([]byte(c.ok("confirm", "show", id, "-o", "json")), &one); err != nil || one.Detail != want {
			t.Errorf("confirm show -o json, %s: %v, detail %q", when, err, one.Detail)
		}
		var all []struct{ ID, Detail string }
		if err := json.Unmarshal([]byte(c.ok("confirm", "list", "--all", "-o", "json")), &all); err != nil {
			t.Fatal(err)
		}
		for _, x := range all {
			if x.ID == id && x.Detail != want {
				t.Errorf("confirm list --all -o json, %s: detail %q", when, x.Detail)
			}
		}
	}
	shown("pending")
	c.ok("confirm", "approve", id, "--as", "human:henry")
	shown("decided")
}
