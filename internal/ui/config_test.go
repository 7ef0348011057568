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
	want := ConsoleConfig{Arming: 600 * time.Millisecond, Settle: 300 * time.Millisecond, Notify: Notify{Bell: true, Title: true, Desktop: DesktopOff}}
	if err != nil || c != want {
		t.Fatalf("missing console.json: %+v, %v; want the defaults %+v", c, err, want)
	}
}

func TestConsoleConfigSetsTheArmingTime(t *testing.T) {
	c, err := ParseConsoleConfig("console.json", []byte(`{"arming": "1.5s"}`))
	if err != nil || c.Arming != 1500*time.Millisecond {
		t.Fatalf("arming 1.5s: %+v, %v", c, err)
	}
	c, err = ParseConsoleConfig("console.json", []byte(`{"settle": "450ms"}`))
	if err != nil || c.Settle != 450*time.Millisecond || c.Arming != DefaultArming {
		t.Fatalf("settle 450ms: %+v, %v", c, err)
	}
	if c := DefaultConsoleConfig(); c.Settle != DefaultSettle {
		t.Errorf("the default settle time is %s, want %s", c.Settle, DefaultSettle)
	}
}

// "All three can be turned off."
func TestConsoleConfigTurnsNotificationsOffAndOn(t *testing.T) {
	c, err := ParseConsoleConfig("console.json", []byte(`{"bell": false, "title": false, "desktop": "off"}`))
	if err != nil || c.Notify != (Notify{Desktop: DesktopOff}) {
		t.Fatalf("all off: %+v, %v", c.Notify, err)
	}
	c, err = ParseConsoleConfig("console.json", []byte(`{"desktop": "osc777"}`))
	if err != nil || c.Notify != (Notify{Bell: true, Title: true, Desktop: DesktopOSC777}) {
		t.Fatalf("desktop osc777: %+v, %v", c.Notify, err)
	}
}

func TestBadConsoleConfigNamesTheSetting(t *testing.T) {
	cases := map[string]string{
		`{"arming": "fast"}`:   `arming "fast": want a duration`,
		`{"arming": "0s"}`:     `arming 0s: want between 100ms and 10s`,
		`{"arming": "1m"}`:     `arming 1m0s: want between 100ms and 10s`,
		`{"settle": "soon"}`:   `settle "soon": want a duration`,
		`{"settle": "5s"}`:     `settle 5s: want between 100ms and 2s`,
		`{"armng": "1s"}`:      `unknown field "armng"`,
		`{"arming": 600}`:      `want {"arming": "600ms", "settle": "300ms", "bell": true`,
		`not json`:             `want {"arming": "600ms", "settle": "300ms", "bell": true`,
		`{"desktop": "osc99"}`: `desktop "osc99": want "off", "osc9" or "osc777"`,
		`{"bell": "yes"}`:      `want {"arming"`,
		// encoding/json v1 reads each of these: the last arming, "Arming"
		// for arming, the first object alone
		`{"arming": "5s", "arming": "600ms"}`: `key "arming" is given twice`,
		`{"Arming": "5s"}`:                    `unknown field "Arming"`,
		`{"bell": false} {"bell": true}`:      `trailing data after the JSON value`,
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
