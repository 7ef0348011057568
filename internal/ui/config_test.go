package ui

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMissingConsoleConfigGivesDefaults(t *testing.T) {
	c, err := LoadConsoleConfig(filepath.Join(t.TempDir(), "console.json"))
	if err != nil || c != DefaultConsoleConfig() || c.Arming != 600*time.Millisecond {
		t.Fatalf("missing console.json: %+v, %v; want the defaults (arming 600ms)", c, err)
	}
}

func TestConsoleConfigSetsTheArmingTime(t *testing.T) {
	c, err := ParseConsoleConfig("console.json", []byte(`{"arming": "1.5s"}`))
	if err != nil || c.Arming != 1500*time.Millisecond {
		t.Fatalf("arming 1.5s: %+v, %v", c, err)
	}
}

func TestBadConsoleConfigNamesTheSetting(t *testing.T) {
	cases := map[string]string{
		`{"arming": "fast"}`: `arming "fast": want a duration`,
		`{"arming": "0s"}`:   `arming 0s: want between 100ms and 10s`,
		`{"arming": "1m"}`:   `arming 1m0s: want between 100ms and 10s`,
		`{"armng": "1s"}`:    `unknown field "armng"`,
		`{"arming": 600}`:    `want {"arming": "600ms"}`,
		`not json`:           `want {"arming": "600ms"}`,
	}
	for doc, want := range cases {
		_, err := ParseConsoleConfig("console.json", []byte(doc))
		if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, ErrConsoleConfig) ||
			!strings.HasPrefix(err.Error(), "console.json: ") {
			t.Errorf("%s: error %v, want one naming console.json and containing %q", doc, err, want)
		}
	}
}

func TestRunRefusesABadConsoleConfig(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "console.json"), []byte(`{"arming": "5ms"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	err := Run(t.Context(), &hubDouble{snap: demoSnapshot()}, RunOptions{Home: home})
	if !errors.Is(err, ErrConsoleConfig) || !strings.Contains(err.Error(), "arming 5ms") {
		t.Fatalf("Run with a bad console.json: %v", err)
	}
}
