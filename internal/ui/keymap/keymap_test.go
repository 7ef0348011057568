package keymap

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestLoadRebinds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys.json")
	if err := os.WriteFile(path, []byte(`{"approve": ["y"], "deny": ["n", "x"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	k, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(k.Approve.Keys(), []string{"y"}) || !slices.Equal(k.Deny.Keys(), []string{"n", "x"}) {
		t.Fatalf("approve %v deny %v", k.Approve.Keys(), k.Deny.Keys())
	}
	if k.Approve.Help().Key != "y" {
		t.Errorf("help still shows %q for approve", k.Approve.Help().Key)
	}
	if !slices.Equal(k.Quit.Keys(), Default().Quit.Keys()) {
		t.Error("an action left out of keys.json lost its default")
	}
}

func TestMissingFileGivesDefaults(t *testing.T) {
	k, err := Load(filepath.Join(t.TempDir(), "none.json"))
	if err != nil || strings.Join(k.Approve.Keys(), ",") != "a" {
		t.Fatalf("missing file: %v, approve %v", err, k.Approve.Keys())
	}
}

func TestRefusalsNameTheActionAndKey(t *testing.T) {
	cases := map[string]string{
		`{"aprove": ["y"]}`:               `unknown action "aprove"`,
		`{"approve": ["enter"]}`:          `action "approve" may not use "enter": `,
		`{"approve_remember": ["space"]}`: `action "approve_remember" may not use "space"`,
		`{"deny": []}`:                    `action "deny" has no keys`,
		`{"deny": [""]}`:                  `action "deny" has an empty key`,
		`{"deny": ["a"]}`:                 `key "a" is bound to both "approve" and "deny"`,
		`{"approve": "a"}`:                `want {"action": ["key", ...]}`,
		// which binding would win is the decoder's whim: neither does
		`{"deny": ["x"], "deny": ["d"]}`: `key "deny" is given twice`,
		"{\"deny\": [\"\xff\"]}":         `not valid UTF-8`,
		// the matrix's keys meet the shell's there
		`{"compare": ["q"]}`: `key "q" is bound to both "quit" and "compare"`,
		// the wizard's approve-on-the-spot meets its finish key
		`{"approve": ["x"], "finish": ["x"]}`: `key "x" is bound to both "approve" and "finish"`,
	}
	for doc, want := range cases {
		_, err := Parse("keys.json", []byte(doc))
		if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, ErrKeyConfig) {
			t.Errorf("%s: error %v, want one containing %q", doc, err, want)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "keys.json: ") {
			t.Errorf("%s: error %q does not name the file", doc, err)
		}
	}
}

// A terminal sends Esc followed quickly by Enter as alt+enter, a pasted
// line break as enter or ctrl+j, a pasted tab as tab: none of what a
// paste or a backing-out can produce may approve, however it is spelled.
// Each refusal is ErrNeverApprove naming the action and the key.
func TestKeysATerminalSendsForTextNeverApprove(t *testing.T) {
	refused := []string{"enter", "ctrl+m", "ctrl+j", "alt+enter", "esc", "space", "tab", "ctrl+i", "ctrl+[",
		"shift+enter", "ctrl+enter", "shift+tab", "alt+a", "alt+y", "ctrl+space", "ctrl+@", "Enter", "CTRL+J"}
	for _, action := range []string{"approve", "approve_remember", "confirm"} {
		for _, k := range refused {
			doc := `{"` + action + `": ["` + k + `"]}`
			_, err := Parse("keys.json", []byte(doc))
			if !errors.Is(err, ErrNeverApprove) || !errors.Is(err, ErrKeyConfig) {
				t.Errorf("%s: %v, want ErrNeverApprove", doc, err)
				continue
			}
			if want := `action "` + action + `" may not use "` + k + `"`; !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %q does not say %q", doc, err, want)
			}
		}
	}
	// What stays bindable: plain keys and the ctrl keys no text produces.
	for _, doc := range []string{`{"approve": ["y"]}`, `{"approve": ["ctrl+y"]}`, `{"approve_remember": ["Y"]}`, `{"confirm": ["!"]}`} {
		if _, err := Parse("keys.json", []byte(doc)); err != nil {
			t.Errorf("%s: %v", doc, err)
		}
	}
}

// One key may serve actions that are never live in the same place: the
// defaults do it (a approves in the queue and steps class A in the matrix),
// and so may an operator.
func TestKeysSharedAcrossPlacesThatNeverMeet(t *testing.T) {
	for _, doc := range []string{`{}`, `{"compare_swap": ["d"]}`, `{"approve": ["y"], "pane": ["y"]}`} {
		if _, err := Parse("keys.json", []byte(doc)); err != nil {
			t.Errorf("%s: %v", doc, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"approve": ["y"]}`))
	f.Add([]byte(`{"quit": ["q", "ctrl+q"], "help": ["h"]}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		k, err := Parse("keys.json", data)
		if err != nil {
			return
		}
		for _, s := range append(append(k.Approve.Keys(), k.ApproveRemember.Keys()...), k.Confirm.Keys()...) {
			if neverApproves(s) != "" {
				t.Fatalf("accepted %q as an approve key", s)
			}
		}
		for _, s := range k.Confirm.Keys() {
			if slices.Contains(k.ApproveRemember.Keys(), s) {
				t.Fatalf("accepted %q for both approve_remember and confirm", s)
			}
		}
	})
}
