package ui

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/virgo-hub/virgo-tui/internal/ui/keymap"
)

func TestKeyConfigRebinds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.json")
	if err := os.WriteFile(path, []byte(`{"approve": ["y"], "deny": ["n", "x"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	k, err := keymap.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	h := &hubDouble{snap: demoSnapshot()}
	m := console(t, h, 80, 24, Options{Keys: &k})
	press(t, m, "2")
	look(m)
	press(t, m, "a")
	if len(h.decisions) != 0 {
		t.Fatal("a still approves after approve was rebound to y")
	}
	deliberately(t, m, "y")
	if len(h.decisions) != 1 || !h.decisions[0].d.Approve {
		t.Fatalf("y did not approve: %+v", h.decisions)
	}
	look(m) // the next confirmation slid under the cursor: it is re-armed
	press(t, m, "x")
	if m.prompt != promptReason {
		t.Fatal("x did not open the deny prompt")
	}
	if !strings.Contains(plain(m), "enter deny with this reason") {
		t.Error("prompt help missing")
	}
}

// One key map reaches every view: the matrix obeys its rebound keys and
// not the defaults, the wizard shows the operator's keys, and ? is help in
// the wizard while every letter is typed into its answer.
func TestKeyConfigReachesEveryView(t *testing.T) {
	k, err := keymap.Parse("keys.json", []byte(`{"approve": ["y"], "compare": ["x"], "back": ["esc", "w"]}`))
	if err != nil {
		t.Fatal(err)
	}
	m := console(t, &hubDouble{snap: demoSnapshot()}, 80, 24, Options{Keys: &k, Plugins: Plugins{Wizard: wizardDouble{}}})
	press(t, m, "4")
	before := plain(m)
	press(t, m, "c")
	if plain(m) != before {
		t.Fatal("c still opens compare in the matrix after compare was rebound to x")
	}
	press(t, m, "x")
	if !strings.Contains(plain(m), "Compare") {
		t.Fatalf("x did not open compare:\n%s", plain(m))
	}
	press(t, m, "w")
	if plain(m) != before {
		t.Fatal("w, the rebound back key, did not return to the matrix")
	}
	press(t, m, "3")
	if !strings.Contains(plain(m), "w/esc back") && !strings.Contains(plain(m), "esc/w back") {
		t.Fatalf("the wizard's help does not show the rebound back key:\n%s", plain(m))
	}
	press(t, m, "?")
	if !m.help.ShowAll || !strings.Contains(plain(m), "ctrl+c cancel") {
		t.Fatalf("? did not show the wizard's full help:\n%s", plain(m))
	}
	press(t, m, "?", "w", "o", "r", "k")
	if m.help.ShowAll || !strings.Contains(plain(m), "scope › work") {
		t.Fatalf("typing into the wizard:\n%s", plain(m))
	}
}

func TestRunRefusesBadKeysAndLogsToAFile(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "keys.json"), []byte(`{"approve": ["space"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	err := Run(t.Context(), &hubDouble{snap: demoSnapshot()}, RunOptions{Home: home})
	if !errors.Is(err, keymap.ErrKeyConfig) || !strings.Contains(err.Error(), `"approve" may not use "space"`) {
		t.Fatalf("Run with a bad keys.json: %v", err)
	}
	fi, err := os.Stat(filepath.Join(home, "console.log"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("console.log: %v %v", fi, err)
	}
}
