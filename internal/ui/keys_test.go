package ui

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKeyConfigRebinds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.json")
	if err := os.WriteFile(path, []byte(`{"approve": ["y"], "deny": ["n", "x"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	k, err := LoadKeyMap(path)
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
	press(t, m, "y")
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

func TestMissingKeyConfigGivesDefaults(t *testing.T) {
	k, err := LoadKeyMap(filepath.Join(t.TempDir(), "none.json"))
	if err != nil || strings.Join(k.Approve.Keys(), ",") != "a" {
		t.Fatalf("missing file: %v, approve %v", err, k.Approve.Keys())
	}
}

func TestBadKeyConfigNamesTheKey(t *testing.T) {
	cases := map[string]string{
		`{"aprove": ["y"]}`:               `unknown action "aprove"`,
		`{"approve": ["enter"]}`:          `action "approve" may not use "enter": enter, space and esc never approve`,
		`{"approve_remember": ["space"]}`: `action "approve_remember" may not use "space"`,
		`{"deny": []}`:                    `action "deny" has no keys`,
		`{"deny": [""]}`:                  `action "deny" has an empty key`,
		`{"deny": ["a"]}`:                 `key "a" is bound to both "approve" and "deny"`,
		`{"approve": "a"}`:                `want {"action": ["key", ...]}`,
	}
	for doc, want := range cases {
		_, err := ParseKeyMap("keys.json", []byte(doc))
		if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, ErrKeyConfig) {
			t.Errorf("%s: error %v, want one containing %q", doc, err, want)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "keys.json: ") {
			t.Errorf("%s: error %q does not name the file", doc, err)
		}
	}
}

func FuzzParseKeyMap(f *testing.F) {
	f.Add([]byte(`{"approve": ["y"]}`))
	f.Add([]byte(`{"quit": ["q", "ctrl+q"], "help": ["h"]}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		k, err := ParseKeyMap("keys.json", data)
		if err != nil {
			return
		}
		for _, s := range append(append(k.Approve.Keys(), k.ApproveRemember.Keys()...), k.Confirm.Keys()...) {
			for _, never := range neverApprove {
				if s == never {
					t.Fatalf("accepted %q as an approve key", s)
				}
			}
		}
	})
}

func TestRunRefusesBadKeysAndLogsToAFile(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "keys.json"), []byte(`{"approve": ["space"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	err := Run(t.Context(), &hubDouble{snap: demoSnapshot()}, RunOptions{Home: home})
	if !errors.Is(err, ErrKeyConfig) || !strings.Contains(err.Error(), `"approve" may not use "space"`) {
		t.Fatalf("Run with a bad keys.json: %v", err)
	}
	fi, err := os.Stat(filepath.Join(home, "console.log"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("console.log: %v %v", fi, err)
	}
}
