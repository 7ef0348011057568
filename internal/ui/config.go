package ui

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/virgo-hub/virgo-tui/internal/strictjson"
)

// ConsoleConfig is the operator's console settings, read from
// <home>/console.json; every field is optional and a missing file means
// the defaults.
type ConsoleConfig struct {
	// Arming is how long a confirmation must have been the selected row,
	// on screen, before a/A/d act on it: "600ms" by default.
	Arming time.Duration
	// Settle is how long no key may follow a decision key before the
	// decision is sent: "300ms" by default (see standing).
	Settle time.Duration
	// Notify calls the operator when a confirmation for them arrives while
	// they are not looking at the queue: "bell" and "title" are on by
	// default, "desktop" ("osc9" or "osc777") is off.
	Notify Notify
}

// The bounds of the arming time: below minArming the protection is gone
// (a key typed right after an arrival would act); above maxArming the
// console is unusable.
const (
	minArming = 100 * time.Millisecond
	maxArming = 10 * time.Second
)

// The bounds of the settle time: below minSettle a typist's next key
// comes too late to cancel; above maxSettle a deliberate decision waits
// longer than an operator would.
const (
	minSettle = 100 * time.Millisecond
	maxSettle = 2 * time.Second
)

// ErrConsoleConfig wraps every refusal of a console.json.
var ErrConsoleConfig = errors.New("console configuration refused")

// consoleFile is console.json as written by the operator.
type consoleFile struct {
	Arming  *string  `json:"arming"`
	Settle  *string  `json:"settle"`
	Bell    *bool    `json:"bell"`
	Title   *bool    `json:"title"`
	Desktop *Desktop `json:"desktop"`
}

// consoleExample is what a refusal shows as the file's shape.
const consoleExample = `{"arming": "600ms", "settle": "300ms", "bell": true, "title": true, "desktop": "off"}`

// DefaultConsoleConfig is the configuration of a home without console.json.
func DefaultConsoleConfig() ConsoleConfig {
	return ConsoleConfig{Arming: DefaultArming, Settle: DefaultSettle, Notify: Notify{Bell: true, Title: true, Desktop: DesktopOff}}
}

// LoadConsoleConfig reads console.json at path over the defaults. A missing
// file yields the defaults; anything else wrong yields an error naming the
// file and the setting.
func LoadConsoleConfig(path string) (ConsoleConfig, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return DefaultConsoleConfig(), nil
	}
	if err != nil {
		return DefaultConsoleConfig(), fmt.Errorf("read console configuration: %w", err)
	}
	return ParseConsoleConfig(path, data)
}

// ParseConsoleConfig applies a console.json document (named name in errors)
// over the defaults. Unknown settings are refused, so a misspelt switch
// never silently leaves a default on.
func ParseConsoleConfig(name string, data []byte) (ConsoleConfig, error) {
	c := DefaultConsoleConfig()
	var f consoleFile
	if err := strictjson.Decode(data, &f); err != nil {
		return c, fmt.Errorf("%s: %w: want %s: %v", name, ErrConsoleConfig, consoleExample, err)
	}
	if f.Arming != nil {
		d, err := time.ParseDuration(*f.Arming)
		if err != nil {
			return c, fmt.Errorf("%s: %w: arming %q: want a duration such as \"600ms\" or \"1s\"", name, ErrConsoleConfig, *f.Arming)
		}
		if d < minArming || d > maxArming {
			return c, fmt.Errorf("%s: %w: arming %s: want between %s and %s", name, ErrConsoleConfig, d, minArming, maxArming)
		}
		c.Arming = d
	}
	if f.Settle != nil {
		d, err := time.ParseDuration(*f.Settle)
		if err != nil {
			return c, fmt.Errorf("%s: %w: settle %q: want a duration such as \"300ms\"", name, ErrConsoleConfig, *f.Settle)
		}
		if d < minSettle || d > maxSettle {
			return c, fmt.Errorf("%s: %w: settle %s: want between %s and %s", name, ErrConsoleConfig, d, minSettle, maxSettle)
		}
		c.Settle = d
	}
	if f.Bell != nil {
		c.Notify.Bell = *f.Bell
	}
	if f.Title != nil {
		c.Notify.Title = *f.Title
	}
	if f.Desktop != nil {
		switch *f.Desktop {
		case DesktopOff, DesktopOSC9, DesktopOSC777:
			c.Notify.Desktop = *f.Desktop
		default:
			return c, fmt.Errorf("%s: %w: desktop %q: want \"off\", \"osc9\" or \"osc777\"", name, ErrConsoleConfig, *f.Desktop)
		}
	}
	return c, nil
}
